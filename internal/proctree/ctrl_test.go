package proctree

import "testing"

func TestParseCtrl_Args(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    []string
		pid, ev uint32
		err     string
	}{
		{"ctrl c", []string{"1234", "c"}, 1234, ctrlCEvent, ""},
		{"ctrl break", []string{"7", "break"}, 7, ctrlBreakEvent, ""},
		{"round trip of break", []string{"7", CtrlEventName(ctrlBreakEvent)}, 7, ctrlBreakEvent, ""},
		{"round trip of c", []string{"7", CtrlEventName(ctrlCEvent)}, 7, ctrlCEvent, ""},
		{"no event", []string{"7"}, 0, 0, "usage: __ctrl PID c|break"},
		{"pid zero", []string{"0", "c"}, 0, 0, `__ctrl: bad pid "0"`},
		{"pid not a number", []string{"x", "c"}, 0, 0, `__ctrl: bad pid "x"`},
		{"pid too big", []string{"4294967296", "c"}, 0, 0, `__ctrl: bad pid "4294967296"`},
		{"unknown event", []string{"7", "term"}, 0, 0, `__ctrl: unknown event "term" (c or break)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			pid, ev, err := parseCtrl(c.args)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("parseCtrl(%q) error = %v, want %q", c.args, err, c.err)
				}
				return
			}
			if err != nil || pid != c.pid || ev != c.ev {
				t.Fatalf("parseCtrl(%q) = %d, %d, %v; want %d, %d", c.args, pid, ev, err, c.pid, c.ev)
			}
		})
	}
}
