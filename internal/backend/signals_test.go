//go:build linux

package backend

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
)

// signalsChildEnv makes the test binary run signalsChild.
const signalsChildEnv = "BACKEND_TEST_SIGNALS_CHILD"

// signalsChild runs in a test binary started with SIGHUP and SIGINT
// ignored. It prints whether they were, then starts a program through
// StartPipe and StartPTY, as a session's, each printing its own ignored
// signals, and passes those lines on.
func signalsChild() int {
	fmt.Printf("started ignoring HUP %v INT %v\n", signal.Ignored(syscall.SIGHUP), signal.Ignored(syscall.SIGINT))
	for _, start := range []func(Spec, func(func()), Sink) (Process, error){StartPipe, StartPTY} {
		var c collector
		p, err := start(spec("grep '^SigIgn:' /proc/self/status"), direct, c.sink)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if _, err := p.Wait(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		select {
		case <-p.Drained():
		case <-time.After(10 * time.Second):
			fmt.Fprintln(os.Stderr, "output never reached its end")
			return 1
		}
		p.Close()
		fmt.Printf("%s %s\n", p.Kind(), strings.TrimSpace(c.get(outlog.Stdout)))
	}
	return 0
}

// TestStart_ChildrenGetDefaultSignals: a process that started with
// SIGHUP and SIGINT ignored (nohup; a script's background job) and has no
// handlers of its own still starts sessions' programs with both at their
// default, as a terminal would: an interactive shell's hang-up and Ctrl+C
// depend on it.
func TestStart_ChildrenGetDefaultSignals(t *testing.T) {
	cmd := exec.Command("sh", "-c", `trap "" HUP INT; exec "$0" -test.run '^$'`, os.Args[0])
	cmd.Env = append(os.Environ(), signalsChildEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || lines[0] != "started ignoring HUP true INT true" {
		t.Fatalf("child printed %q, want its start with both ignored and two programs' lines", out)
	}
	const hupINT = 1<<(syscall.SIGHUP-1) | 1<<(syscall.SIGINT-1)
	for i, kind := range []string{"pipe", "pty"} {
		var got string
		var mask uint64
		if _, err := fmt.Sscanf(lines[i+1], "%s SigIgn: %x", &got, &mask); err != nil || got != kind {
			t.Fatalf("line %q: %v, want %s's SigIgn", lines[i+1], err, kind)
		}
		if mask&hupINT != 0 {
			t.Errorf("%s program's SigIgn %#x ignores SIGHUP or SIGINT", kind, mask)
		}
	}
}
