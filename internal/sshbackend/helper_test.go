package sshbackend

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// localHelper runs helper.sh on this machine, as the remote would.
type localHelper struct {
	in  io.WriteCloser
	out *bufio.Scanner
}

func startLocalHelper(t *testing.T) *localHelper {
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

func (h *localHelper) next(t *testing.T) string {
	t.Helper()
	if !h.out.Scan() {
		t.Fatalf("helper ended: %v", h.out.Err())
	}
	return h.out.Text()
}

func (h *localHelper) ask(t *testing.T, req string) string {
	t.Helper()
	if _, err := io.WriteString(h.in, req+"\n"); err != nil {
		t.Fatal(err)
	}
	return h.next(t)
}

// probeUntil asks until the state is want (a freshly started program needs
// a moment to block), failing after 10 s.
func (h *localHelper) probeUntil(t *testing.T, pid int, want string, detail ...string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ans := h.ask(t, "P "+strconv.Itoa(pid))
		if strings.HasPrefix(ans, want+" ") && (len(detail) == 0 || strings.Contains(ans, detail[0])) {
			return ans
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d: last answer %q, want %s", pid, ans, want)
		}
		time.Sleep(2 * time.Millisecond) // the program offers no event for "now blocked"
	}
}

func startInPTY(t *testing.T, argv ...string) *exec.Cmd {
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
	t.Run("python REPL on a pty waits in select", func(t *testing.T) {
		cmd := startInPTY(t, "python3", "-q")
		ans := h.probeUntil(t, cmd.Process.Pid, "awaiting_input")
		if !strings.Contains(ans, "(python3)") {
			t.Fatalf("%q", ans)
		}
	})
	t.Run("read -s is a password prompt", func(t *testing.T) {
		cmd := startInPTY(t, "bash", "--norc", "-c", "read -s x")
		h.probeUntil(t, cmd.Process.Pid, "awaiting_password")
	})
	t.Run("sleeping child is running", func(t *testing.T) {
		cmd := startInPTY(t, "bash", "--norc", "-c", "sleep 600; read x")
		h.probeUntil(t, cmd.Process.Pid, "running", "(sleep) is blocked in syscall")
	})
	t.Run("cat on a stdin pipe", func(t *testing.T) {
		cmd := exec.Command("cat")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		w, _ := cmd.StdinPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { w.Close(); _ = cmd.Wait() }()
		ans := h.probeUntil(t, cmd.Process.Pid, "awaiting_input")
		if !strings.Contains(ans, "in read on fd 0") {
			t.Fatalf("%q", ans)
		}
	})
	t.Run("exited root", func(t *testing.T) {
		if ans := h.ask(t, "P 999999999"); !strings.HasPrefix(ans, "running 0 0 0 root process") {
			t.Fatalf("%q", ans)
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
