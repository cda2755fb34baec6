package darwinproc

import (
	"errors"
	"reflect"
	"testing"
)

func procargs(argc int32, rest string) []byte {
	return append(le.AppendUint32(nil, uint32(argc)), rest...)
}

func TestParseProcArgs_Layouts(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		want Args
	}{
		{"args, env, apple strings", procargs(2, "/bin/sleep\x00\x00\x00\x00sleep\x0030\x00HOME=/Users/me\x00AGENTTY_SESSION=s1\x00\x00executable_path=/bin/sleep\x00"),
			Args{Exec: "/bin/sleep", Argv: []string{"sleep", "30"}, Env: []string{"HOME=/Users/me", "AGENTTY_SESSION=s1"}}},
		{"no environment (withheld)", procargs(1, "/usr/bin/sudo\x00\x00sudo\x00\x00ptr_munge=\x00"),
			Args{Exec: "/usr/bin/sudo", Argv: []string{"sudo"}}},
		{"cut short in the arguments", procargs(3, "/bin/echo\x00echo\x00a"),
			Args{Exec: "/bin/echo", Argv: []string{"echo", "a"}}},
		{"environment to the end", procargs(1, "/x\x00x\x00A=1\x00B=2"),
			Args{Exec: "/x", Argv: []string{"x"}, Env: []string{"A=1", "B=2"}}},
		{"empty argument kept", procargs(2, "/x\x00x\x00\x00A=1\x00\x00"),
			Args{Exec: "/x", Argv: []string{"x", ""}, Env: []string{"A=1"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseProcArgs(c.b)
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("parseProcArgs = %#v, %v\nwant %#v", got, err, c.want)
			}
		})
	}
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"too short", []byte{1, 0}},
		{"negative argc", procargs(-1, "/x\x00")},
		{"no path end", procargs(1, "/x")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := parseProcArgs(c.b); !errors.Is(err, errProcArgs) {
				t.Fatalf("parseProcArgs error = %v, want errProcArgs", err)
			}
		})
	}
	t.Run("Getenv", func(t *testing.T) {
		a := Args{Env: []string{"AGENTTY=x", "AGENTTY_SESSION=s1", "EMPTY="}}
		for key, want := range map[string]string{"AGENTTY_SESSION": "s1", "AGENTTY": "x", "EMPTY": ""} {
			if v, ok := a.Getenv(key); !ok || v != want {
				t.Errorf("Getenv(%q) = %q, %v; want %q", key, v, ok, want)
			}
		}
		if v, ok := a.Getenv("AGENT"); ok {
			t.Errorf("Getenv(AGENT) = %q, true; want unset", v)
		}
	})
}
