package proctree

import (
	"bytes"
	"maps"
	"testing"
	"time"
)

// feedBuffer is a feedSink that keeps what was written.
type feedBuffer struct{ bytes.Buffer }

func (*feedBuffer) SetWriteDeadline(time.Time) error { return nil }

func TestFeed_RoundTrip(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		want   map[int]uint64
	}{
		{"adds", []string{"+10 5\n+11 6\n"}, map[int]uint64{10: 5, 11: 6}},
		{"a line split across reads", []string{"+10 ", "5\n+1", "1 6\n"}, map[int]uint64{10: 5, 11: 6}},
		{"drop", []string{"+10 5\n+11 6\n-10 5\n"}, map[int]uint64{11: 6}},
		{"a drop of another instance of the pid keeps the member", []string{"+10 5\n-10 4\n"}, map[int]uint64{10: 5}},
		{"malformed lines are ignored", []string{"+x 5\n+10\n?10 5\n+1 1\n+0 3\n\n+12 7\n"}, map[int]uint64{12: 7}},
		{"an unfinished line waits", []string{"+10 5\n+11 6"}, map[int]uint64{10: 5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r feedReader
			for _, c := range tc.chunks {
				r.take([]byte(c))
			}
			if !maps.Equal(r.members, tc.want) {
				t.Errorf("members = %v, want %v", r.members, tc.want)
			}
		})
	}
	t.Run("writer", func(t *testing.T) {
		var b feedBuffer
		writeFeed(&b, []Proc{{PID: 10, StartTime: 5}, {PID: 11, StartTime: 6}}, []Proc{{PID: 10, StartTime: 5}})
		if got, want := b.String(), "+10 5\n+11 6\n-10 5\n"; got != want {
			t.Errorf("wrote %q, want %q", got, want)
		}
		var r feedReader
		r.take(b.Bytes())
		if want := map[int]uint64{11: 6}; !maps.Equal(r.members, want) {
			t.Errorf("read back %v, want %v", r.members, want)
		}
	})
}
