//go:build unix

package sshbackend

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/inputwait"
	"github.com/creack/pty"
)

// localHelper runs helper.sh on this machine, as the remote would.
type localHelper struct {
	in  io.WriteCloser
	out *bufio.Scanner
}

func startLocalHelper(t testing.TB) *localHelper {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", helperScript)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	h := &localHelper{in: in, out: bufio.NewScanner(out)}
	if hello := h.next(t); !strings.HasPrefix(hello, "agentty-helper Linux ") {
		t.Fatalf("hello %q", hello)
	}
	return h
}

func (h *localHelper) next(t testing.TB) string {
	t.Helper()
	if !h.out.Scan() {
		t.Fatalf("helper ended: %v", h.out.Err())
	}
	return h.out.Text()
}

func (h *localHelper) ask(t testing.TB, req string) string {
	t.Helper()
	if _, err := io.WriteString(h.in, req+"\n"); err != nil {
		t.Fatal(err)
	}
	return h.next(t)
}

// probeUntil asks until the judged state is want (a freshly started
// program needs a moment to block), failing after 10 s; detail, if given,
// must be in the state's detail.
func (h *localHelper) probeUntil(t testing.TB, pid int, want string, detail ...string) inputwait.Probe {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ans := h.ask(t, "P "+strconv.Itoa(pid))
		pr, err := parseProbe(ans)
		if err != nil {
			t.Fatal(err)
		}
		if string(pr.State) == want && (len(detail) == 0 || strings.Contains(pr.Detail, detail[0])) {
			return pr
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d: last answer %q judged %s %q, want %s %q", pid, ans, pr.State, pr.Detail, want, detail)
		}
		time.Sleep(2 * time.Millisecond) // the program offers no event for "now blocked"
	}
}

// startWithPipe starts argv in its own session with a stdin pipe, as sshd
// starts a command without a terminal.
func startWithPipe(t *testing.T, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	w, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

func startInPTY(t testing.TB, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	f, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, f) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		f.Close()
	})
	return cmd
}

func TestHelperScript_Probe(t *testing.T) {
	h := startLocalHelper(t)
	log := filepath.Join(t.TempDir(), "app.log")
	if err := os.WriteFile(log, []byte("line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// other waits for a pipe of its own (fd 3), never for fd 0.
	other := func(wait string) []string {
		return []string{"python3", "-c", "import os, select, sys; r, w = os.pipe(); " + wait}
	}
	for _, tc := range []struct {
		name        string
		pty         bool
		argv        []string
		state, want string
	}{
		{"python REPL on a pty waits in select", true, []string{"python3", "-q"}, "awaiting_input", "(python3) in pselect6 on fd 0 (tty)"},
		{"read -s is a password prompt", true, []string{"bash", "--norc", "-c", "read -s x"}, "awaiting_password", "(bash) in read on fd 0 (tty); echo off"},
		{"sleeping child is running", true, []string{"bash", "--norc", "-c", "sleep 600; read x"}, "running", "(sleep) is blocked in clock_nanosleep, not on the input"},
		{"cat on a stdin pipe", false, []string{"cat"}, "awaiting_input", "(cat) in read on fd 0 (pipe)"},
		{"cat on a pty", true, []string{"cat"}, "awaiting_input", "(cat) in read on fd 0 (tty)"},
		{"tail -f on a stdin pipe polls no input", false, []string{"tail", "-f", log}, "running", "(tail) is blocked in poll, not on the input"},
		{"tail -f on a pty polls no input", true, []string{"tail", "-f", log}, "running", "(tail) is blocked in poll, not on the input"},
		{"select on another pipe", false, other("select.select([r], [], [])"), "running", "(python3) is blocked in pselect6, not on the input"},
		{"poll on another pipe", false, other("p = select.poll(); p.register(r, select.POLLIN); p.poll()"), "running", "(python3) is blocked in poll, not on the input"},
		{"poll on the input without POLLIN", true, other("p = select.poll(); p.register(0, select.POLLPRI); p.poll()"), "running", "(python3) is blocked in poll, not on the input"},
		{"epoll on another pipe", false, other("p = select.epoll(); p.register(r, select.EPOLLIN); p.poll()"), "running", "(python3) is blocked in epoll_wait, not on the input"},
		{"read of another pipe", false, other("os.read(r, 1)"), "running", "nothing in process group"},
		{"select on the input with a timeout", false, other("select.select([sys.stdin, r], [], [], 30)"), "awaiting_input", "(python3) in pselect6 on fd 0 (pipe) with a 30s timeout"},
		{"pselect6 on a pty with a timeout", true, []string{"python3", "-q", "-c", "import select, sys; select.select([sys.stdin], [], [], 12.5)"}, "awaiting_input", " on fd 0 (tty) with a 12.5s timeout"},
		{"poll on the input with a timeout on a pty", true, other("p = select.poll(); p.register(0, select.POLLIN); p.poll(25000)"), "awaiting_input", "(python3) in poll on fd 0 (tty) with a 25s timeout"},
		{"epoll on the input with a timeout", false, other("p = select.epoll(); p.register(0, select.EPOLLIN); p.poll(20)"), "awaiting_input", "(python3) in epoll_wait on fd 0 (pipe) with a 20s timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cmd *exec.Cmd
			if tc.pty {
				cmd = startInPTY(t, tc.argv...)
			} else {
				cmd = startWithPipe(t, tc.argv...)
			}
			h.probeUntil(t, cmd.Process.Pid, tc.state, tc.want)
		})
	}
	t.Run("memory read for a wait is reused while the thread sleeps", func(t *testing.T) {
		cmd := startInPTY(t, "python3", "-q")
		h.probeUntil(t, cmd.Process.Pid, "awaiting_input", "(python3) in pselect6 on fd 0 (tty)")
		req := "P " + strconv.Itoa(cmd.Process.Pid)
		first := h.ask(t, req)
		if !strings.Contains(first, " m 0x") {
			t.Fatalf("no memory record: %q", first)
		}
		if again := h.ask(t, req); again != first {
			t.Fatalf("a sleeping program's answer changed:\n%q\n%q", first, again)
		}
	})
	t.Run("F leaves out the terminal modes", func(t *testing.T) {
		cmd := startInPTY(t, "bash", "--norc", "-c", "read -s x")
		h.probeUntil(t, cmd.Process.Pid, "awaiting_password")
		pr, err := parseProbe(h.ask(t, "F "+strconv.Itoa(cmd.Process.Pid)))
		if err != nil || pr.State != inputwait.AwaitingInput || strings.Contains(pr.Detail, "echo off") {
			t.Fatalf("F: %+v %v", pr, err)
		}
	})
	t.Run("exited root", func(t *testing.T) {
		pr, err := parseProbe(h.ask(t, "P 999999999"))
		if err != nil || pr.State != inputwait.Running || pr.Detail != "remote root process 999999999 has exited (remote /proc probe)" {
			t.Fatalf("%+v %v", pr, err)
		}
	})
}

func TestHelperScript_KillTree(t *testing.T) {
	h := startLocalHelper(t)
	marker := "helpertest/" + strconv.Itoa(os.Getpid())
	cmd := exec.Command("/bin/sh", "-c", "setsid sleep 600 & sleep 601 & echo started; wait")
	cmd.Env = append(os.Environ(), "AGENTTY_SESSION="+marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "started\n" {
		t.Fatalf("got %q", line)
	}
	sid := strconv.Itoa(cmd.Process.Pid)
	deadline := time.Now().Add(10 * time.Second)
	for h.ask(t, "C "+sid+" "+marker) != "ok 3" {
		if time.Now().After(deadline) {
			t.Fatalf("tree never reached 3 processes: %q", h.ask(t, "C "+sid+" "+marker))
		}
		time.Sleep(2 * time.Millisecond) // the children fork asynchronously
	}
	if ans := h.ask(t, "K KILL "+sid+" "+marker); ans != "ok 3" {
		t.Fatalf("kill: %q", ans)
	}
	_ = cmd.Wait()
	deadline = time.Now().Add(10 * time.Second)
	for h.ask(t, "C "+sid+" "+marker) != "ok 0" {
		if time.Now().After(deadline) {
			t.Fatal("processes survived K KILL")
		}
		time.Sleep(2 * time.Millisecond) // reparented children are reaped by init
	}
}
