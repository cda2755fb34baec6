//go:build linux

package backend

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/proctree"
)

// keptSpec is spec started through this test binary as the keeper.
func keptSpec(t *testing.T, script string) Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sp := spec(script)
	sp.Keeper = []string{exe, proctree.KeeperArg}
	return sp
}

// reapKeeper waits for p's keeper to exit and reaps it, as the server's
// orphan reaper would.
func reapKeeper(t *testing.T, p Process) {
	t.Helper()
	k := keptOf(p)
	select {
	case <-k.gone:
	case <-time.After(keeperGone):
		t.Fatalf("keeper %d still running", k.keeper)
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(k.keeper, &ws, 0, nil); err != nil {
		t.Fatalf("reap keeper %d: %v", k.keeper, err)
	}
	if !ws.Exited() || ws.ExitStatus() != 0 {
		t.Errorf("keeper ended with %v, want exit 0", ws)
	}
}

func keptOf(p Process) *kept {
	switch p := p.(type) {
	case *ptyProcess:
		return p.kept
	case *pipeProcess:
		return p.kept
	}
	return nil
}

// Through a keeper the program is still the root: its pid (its parent the
// keeper), its environment and output, its exit (OnExit, Wait: code or
// signal); the keeper exits by itself once the program has.
func TestKeeper_ReportsTheProgram(t *testing.T) {
	cases := []struct {
		name, script string
		want         Exit
	}{
		{"zero", `echo "v=$KEPT_VAR"; exit 0`, Exit{Code: 0}},
		{"code", `echo "v=$KEPT_VAR"; exit 3`, Exit{Code: 3}},
		{"signal", `echo "v=$KEPT_VAR"; kill -TERM $$`, Exit{Code: -1, Signal: syscall.SIGTERM}},
	}
	for _, tc := range cases {
		for _, start := range []func(Spec, func(func()), Sink) (Process, error){StartPTY, StartPipe} {
			var c collector
			sp := keptSpec(t, tc.script)
			sp.Env = append(sp.Env, "KEPT_VAR=x y")
			p, err := start(sp, direct, c.sink)
			if err != nil {
				t.Fatal(err)
			}
			k := keptOf(p)
			if k == nil || p.PID() != k.pid || p.PID() == k.keeper {
				t.Fatalf("%s/%s: not started through a keeper (%+v)", tc.name, p.Kind(), k)
			}
			called := make(chan struct{})
			if err := p.OnExit(func() { close(called) }); err != nil {
				t.Fatal(err)
			}
			select {
			case <-called:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s/%s: OnExit never called", tc.name, p.Kind())
			}
			got, err := p.Wait()
			if err != nil || got != tc.want {
				t.Fatalf("%s/%s: Wait = %+v, %v; want %+v", tc.name, p.Kind(), got, err, tc.want)
			}
			<-p.Drained()
			if out := strings.ReplaceAll(c.get(outlog.Stdout), "\r", ""); out != "v=x y\n" {
				t.Errorf("%s/%s: output %q", tc.name, p.Kind(), out)
			}
			reapKeeper(t, p)
			p.Close()
		}
	}
}

// A program the keeper cannot start fails the start as a direct start
// would: not found is fs.ErrNotExist.
func TestKeeper_StartFails(t *testing.T) {
	sp := keptSpec(t, "")
	sp.Path, sp.Argv = "/nonexistent/program", []string{"program"}
	p, err := StartPipe(sp, direct, func(outlog.Stream, []byte) {})
	if err == nil {
		p.Close()
		t.Fatal("started a program that does not exist")
	}
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "/nonexistent/program") {
		t.Fatalf("error %v, want not found naming the program", err)
	}
}

// What the program leaves when it exits keeps running, however it left
// the tree, until Terminate; then it ends, and so does the keeper. Looped:
// the escapee's reparenting races the program's exit.
func TestKeeper_TerminateEndsEscapees(t *testing.T) {
	starts := []func(Spec, func(func()), Sink) (Process, error){StartPTY, StartPipe}
	for i := range 40 {
		start := starts[i%2]
		var c collector
		sp := keptSpec(t, `(env -i setsid sh -c 'echo "escaped=$$"; exec sleep 300 </dev/null >/dev/null 2>&1' &)`)
		p, err := start(sp, direct, c.sink)
		if err != nil {
			t.Fatal(err)
		}
		if ex, err := p.Wait(); err != nil || ex != (Exit{}) {
			t.Fatalf("%s: Wait = %+v, %v", p.Kind(), ex, err)
		}
		<-p.Drained()
		m := regexp.MustCompile(`escaped=(\d+)`).FindStringSubmatch(c.get(outlog.Stdout))
		if m == nil {
			t.Fatalf("%s: output %q", p.Kind(), c.get(outlog.Stdout))
		}
		pid, _ := strconv.Atoi(m[1])
		k := keptOf(p)
		st, err := os.ReadFile("/proc/" + m[1] + "/stat")
		if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); err != nil || len(f) < 2 || f[1] != strconv.Itoa(k.keeper) {
			t.Fatalf("%s: escapee %d is not the keeper's child: %q %v", p.Kind(), pid, st, err)
		}
		select {
		case <-k.gone:
			t.Fatalf("%s: the keeper left before its tree was empty", p.Kind())
		default:
		}
		if err := p.Terminate(context.Background(), 100*time.Millisecond); err != nil {
			t.Fatalf("%s: terminate: %v", p.Kind(), err)
		}
		if proctree.Running(pid) {
			t.Fatalf("%s: escapee %d survived terminate", p.Kind(), pid)
		}
		reapKeeper(t, p)
		p.Close()
	}
}

// A sandbox's namespaces and Landlock rules reach the program through its
// keeper: loopback only, no write outside the directory.
func TestKeeper_Sandbox(t *testing.T) {
	keeper := keptSpec(t, "").Keeper
	dir := t.TempDir()
	ex, out, _ := runKept(t, keeper, dir, contain.Profile{Sandbox: contain.Sandbox{NoNetwork: true, Filesystem: contain.FSReadOnly}},
		"/bin/sh", "-c", `tail -n +3 /proc/self/net/dev | cut -d: -f1 | tr -d ' '; echo x > ok && echo wrote; echo x > `+t.TempDir()+`/no || echo refused`)
	if ex != (Exit{}) || !strings.HasPrefix(out, "lo\nwrote\n") || !strings.HasSuffix(out, "refused\n") {
		t.Fatalf("exit %+v, output %q", ex, out)
	}
}
