//go:build linux

package proctree

import (
	"errors"
	"testing"
)

func TestParseStat(t *testing.T) {
	tail := " 0 0 0 0 0 20 0 1 0 98765 0 0"
	tests := []struct {
		name string
		in   string
		want procStat
		err  bool
	}{
		{
			name: "plain",
			in:   "42 (sleep) S 7 42 40 34816 42 4194560 1 0 0" + tail,
			want: procStat{Proc: Proc{PID: 42, PPID: 7, PGID: 42, SID: 40, StartTime: 98765, Comm: "sleep"}, State: 'S'},
		},
		{
			name: "comm with spaces and parens",
			in:   "42 (a) b (c)) Z 1 2 3 0 -1 4194560 1 0 0" + tail,
			want: procStat{Proc: Proc{PID: 42, PPID: 1, PGID: 2, SID: 3, StartTime: 98765, Comm: "a) b (c)"}, State: 'Z'},
		},
		{name: "truncated", in: "42 (sleep) S 7 42", err: true},
		{name: "no comm", in: "42 sleep S 7 42 40 0 0 0 0 0 0" + tail, err: true},
		{name: "bad number", in: "42 (sleep) S x 42 40 34816 42 4194560 1 0 0" + tail, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat(42, []byte(tt.in))
			if tt.err {
				if !errors.Is(err, errBadStat) {
					t.Fatalf("err = %v, want errBadStat", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestEnvMatch(t *testing.T) {
	env := []byte("PATH=/bin\x00AGENTTY_SESSION=ab12/s3\x00HOME=/root\x00")
	tests := []struct {
		name   string
		env    []byte
		entry  string
		prefix string
		want   bool
	}{
		{name: "exact entry", env: env, entry: "AGENTTY_SESSION=ab12/s3", want: true},
		{name: "entry is a prefix of a value", env: env, entry: "AGENTTY_SESSION=ab12/s", want: false},
		{name: "entry longer than value", env: env, entry: "AGENTTY_SESSION=ab12/s33", want: false},
		{name: "last entry without NUL", env: []byte("A=1\x00AGENTTY_SESSION=ab12/s3"), entry: "AGENTTY_SESSION=ab12/s3", want: true},
		{name: "empty env", env: nil, entry: "AGENTTY_SESSION=ab12/s3", want: false},
		{name: "instance prefix", env: env, prefix: "AGENTTY_SESSION=ab12/", want: true},
		{name: "other instance prefix", env: env, prefix: "AGENTTY_SESSION=ab1/", want: false},
		{name: "prefix only at entry start", env: []byte("X=AGENTTY_SESSION=ab12/s3\x00"), prefix: "AGENTTY_SESSION=ab12/", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bool
			if tt.prefix != "" {
				got = envHasPrefix(tt.env, tt.prefix)
			} else {
				got = envHasEntry(tt.env, tt.entry)
			}
			if got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMarkerEntry(t *testing.T) {
	for in, want := range map[string]string{
		"ab12/s3":                 "AGENTTY_SESSION=ab12/s3",
		"AGENTTY_SESSION=ab12/s3": "AGENTTY_SESSION=ab12/s3",
	} {
		if got := markerEntry(in); got != want {
			t.Errorf("markerEntry(%q) = %q, want %q", in, got, want)
		}
	}
}
