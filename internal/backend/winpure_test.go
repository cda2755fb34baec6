package backend

import (
	"errors"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unicode/utf16"

	"github.com/agentty/agentty/internal/sigs"
)

func TestWindowsEnvBlock_SortsAndDedupes(t *testing.T) {
	decode := func(b []uint16) []string {
		s := string(utf16.Decode(b))
		if !strings.HasSuffix(s, "\x00\x00") {
			t.Fatalf("block %q does not end in two NULs", s)
		}
		return strings.Split(strings.TrimSuffix(s, "\x00\x00"), "\x00")
	}
	cases := []struct {
		name string
		env  []string
		want []string
	}{
		{"sorted without case", []string{"b=2", "A=1", "c=3"}, []string{"A=1", "b=2", "c=3"}},
		{"last of one name wins", []string{"Path=C:\\a", "HOME=x", "PATH=C:\\b"}, []string{"HOME=x", "PATH=C:\\b"}},
		{"drive cwds first", []string{"Z=1", "=C:=C:\\work", "=D:=D:\\"}, []string{"=C:=C:\\work", "=D:=D:\\", "Z=1"}},
		{"no equals sign dropped", []string{"JUNK", "A=1"}, []string{"A=1"}},
		{"unicode kept", []string{"NAME=héllo ☃"}, []string{"NAME=héllo ☃"}},
		{"empty value", []string{"E="}, []string{"E="}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := windowsEnvBlock(c.env)
			if err != nil {
				t.Fatal(err)
			}
			if got := decode(b); !slices.Equal(got, c.want) {
				t.Fatalf("block = %q, want %q", got, c.want)
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		b, err := windowsEnvBlock(nil)
		if err != nil || !slices.Equal(b, []uint16{0, 0}) {
			t.Fatalf("block = %v, %v; want two NULs", b, err)
		}
	})
	t.Run("NUL refused", func(t *testing.T) {
		if _, err := windowsEnvBlock([]string{"A=x\x00y"}); err == nil {
			t.Fatal("a NUL in a value was accepted")
		}
	})
}

func TestWindowsAction_MapsSignals(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		want winAction
	}{
		{syscall.Signal(2), winCtrlC}, {syscall.Signal(3), winCtrlBreak},
		{syscall.Signal(15), winEnd}, {syscall.Signal(1), winEnd}, {syscall.Signal(9), winEnd},
	} {
		t.Run(sigs.Name(c.sig), func(t *testing.T) {
			got, err := windowsAction(c.sig)
			if err != nil || got != c.want {
				t.Fatalf("windowsAction(%v) = %v, %v; want %v", c.sig, got, err, c.want)
			}
		})
	}
	for _, c := range []struct {
		sig  syscall.Signal
		word string
	}{
		{sigs.USR1, "Windows has no SIGUSR1"}, {sigs.TSTP, "Windows has no SIGTSTP"},
		{sigs.WINCH, "Windows has no SIGWINCH"}, {syscall.Signal(99), "Windows has no signal 99"},
	} {
		t.Run(c.word, func(t *testing.T) {
			_, err := windowsAction(c.sig)
			if !errors.Is(err, ErrSignalUnsupported) || !strings.Contains(err.Error(), c.word+";") {
				t.Fatalf("windowsAction(%d) error = %v; want ErrSignalUnsupported saying %q", c.sig, err, c.word)
			}
		})
	}
}

func TestWindowsExitStatus_Words(t *testing.T) {
	for _, c := range []struct {
		code int
		want string
	}{
		{0, ""}, {1, ""}, {255, ""}, {-1, ""},
		{0xC000013A, "STATUS_CONTROL_C_EXIT (ended by Ctrl+C or Ctrl+Break)"},
		{0xC0000005, "STATUS_ACCESS_VIOLATION (crashed: invalid memory access)"},
		{0xC0001234, "NTSTATUS 0xC0001234 (an error status: the process most likely crashed)"},
		{0x40000000, ""},
	} {
		if got := WindowsExitStatus(c.code); got != c.want {
			t.Errorf("WindowsExitStatus(%#x) = %q, want %q", c.code, got, c.want)
		}
	}
}

func TestJobTable_Messages(t *testing.T) {
	type calls struct{ root, empty int }
	setup := func() (*jobTable, *calls) {
		c := &calls{}
		tb := newJobTable()
		tb.add(7, 100, func() { c.empty++ })
		return tb, c
	}
	run := func(fs []func()) {
		for _, f := range fs {
			f()
		}
	}
	t.Run("root exit then empty", func(t *testing.T) {
		tb, c := setup()
		run(tb.onExit(7, func() { c.root++ }))
		run(tb.message(7, jobMsgNewProcess, 101))
		run(tb.message(7, jobMsgExitProcess, 101)) // a child: not the root
		if c.root != 0 {
			t.Fatalf("a child's exit reported the root's")
		}
		run(tb.message(7, jobMsgExitProcess, 100))
		run(tb.message(7, jobMsgActiveProcessZero, 0))
		run(tb.message(7, jobMsgActiveProcessZero, 0))
		if *c != (calls{1, 1}) || !tb.isEmpty(7) {
			t.Fatalf("calls = %+v, empty %v; want one of each, empty", *c, tb.isEmpty(7))
		}
	})
	t.Run("abnormal exit is an exit", func(t *testing.T) {
		tb, c := setup()
		run(tb.onExit(7, func() { c.root++ }))
		run(tb.message(7, jobMsgAbnormalExitProcess, 100))
		if c.root != 1 || tb.isEmpty(7) {
			t.Fatalf("calls = %+v, empty %v", *c, tb.isEmpty(7))
		}
	})
	t.Run("lost exit message: empty ends the wait", func(t *testing.T) {
		tb, c := setup()
		run(tb.onExit(7, func() { c.root++ }))
		run(tb.message(7, jobMsgActiveProcessZero, 0))
		if *c != (calls{1, 1}) {
			t.Fatalf("calls = %+v", *c)
		}
	})
	t.Run("OnExit after the exit is due at once", func(t *testing.T) {
		tb, c := setup()
		run(tb.message(7, jobMsgExitProcess, 100))
		due := tb.onExit(7, func() { c.root++ })
		if len(due) != 1 {
			t.Fatalf("%d callbacks due, want 1", len(due))
		}
		run(due)
		run(tb.message(7, jobMsgActiveProcessZero, 0))
		if *c != (calls{1, 1}) {
			t.Fatalf("calls = %+v", *c)
		}
	})
	t.Run("unknown and removed keys", func(t *testing.T) {
		tb, c := setup()
		if due := tb.message(8, jobMsgActiveProcessZero, 0); due != nil {
			t.Fatalf("a packet of an unknown job was due")
		}
		tb.remove(7)
		if due := tb.message(7, jobMsgActiveProcessZero, 0); due != nil || tb.len() != 0 || !tb.isEmpty(7) {
			t.Fatalf("a removed job still answers")
		}
		if len(tb.onExit(7, func() {})) != 1 || c.root != 0 {
			t.Fatalf("OnExit of a job no longer watched is not due at once")
		}
	})
}
