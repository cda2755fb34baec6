package main

// End-to-end tests of ls, attach, logs, kill and export: the test binary
// runs as a server that serves MCP on stdio (the agent) and the console on
// a unix socket (the person), as the daemon does, and as the CLI itself.

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	core "github.com/agentty/agentty/internal/server"
)

// consoleServerEnv makes the test binary a server whose console listens on
// the unix socket it names.
const consoleServerEnv = "AGENTTY_E2E_CONSOLE_SOCKET"

func init() {
	if sock := os.Getenv(consoleServerEnv); sock != "" && os.Getenv(e2eEnv) == "1" {
		os.Exit(consoleServerMain(sock))
	}
}

func consoleServerMain(sock string) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := core.New(core.Config{Version: "e2e", Logger: log, Sessions: &core.SessionConfig{KillGrace: 500 * time.Millisecond},
		Store: &core.StoreConfig{Dir: filepath.Join(os.Getenv("XDG_STATE_HOME"), "agentty")}})
	if err != nil {
		log.Error("start", "err", err)
		return 1
	}
	err = s.Serve(context.Background(), consoleStdio{sock})
	_ = s.Close()
	if err != nil {
		log.Error("serve", "err", err)
		return 1
	}
	return 0
}

// consoleStdio serves MCP on stdio and the console on a unix socket.
type consoleStdio struct{ sock string }

func (c consoleStdio) Serve(ctx context.Context, ep core.Endpoint) error {
	ln, err := net.Listen("unix", c.sock)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: ep.Console}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	return core.Stdio{}.Serve(ctx, ep)
}

// startConsoleServer starts the server and returns it and its socket.
func startConsoleServer(t *testing.T) (*server, string) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "agentty.sock")
	s := startServerWith(t, func(c *exec.Cmd) { c.Env = append(c.Env, consoleServerEnv+"="+sock) })
	return s, sock
}

// cli runs an agentty console command against sock and returns its
// stdout; it must exit 0.
func cli(t *testing.T, sock string, args ...string) string {
	t.Helper()
	cmd := selfCommand(t, args...)
	cmd.Env = append(cmd.Env, "AGENTTY_SOCKET="+sock)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agentty %v: %v: %s", args, err, stderr.String())
	}
	return string(out)
}

// terminal is a program running on a PTY the test owns, with everything
// it printed.
type terminal struct {
	t    *testing.T
	ptmx *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  strings.Builder // guarded by mu
	more chan struct{}   // guarded by mu; closed and replaced at each read
	done chan struct{}   // closed when the PTY reads EOF
}

func startTerminal(t *testing.T, cmd *exec.Cmd, rows, cols uint16) *terminal {
	t.Helper()
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	tm := &terminal{t: t, ptmx: ptmx, cmd: cmd, more: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(tm.done)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			close(tm.more)
			tm.more = make(chan struct{})
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		ptmx.Close()
		<-tm.done
	})
	return tm
}

// waitFor waits until the terminal has shown s, failing after a minute.
func (tm *terminal) waitFor(s string) {
	tm.t.Helper()
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	for {
		tm.mu.Lock()
		out, more := tm.out.String(), tm.more
		tm.mu.Unlock()
		if strings.Contains(out, s) {
			return
		}
		select {
		case <-more:
		case <-tm.done:
			tm.t.Fatalf("terminal closed before showing %q: %q", s, out)
		case <-deadline.C:
			tm.t.Fatalf("terminal did not show %q: %q", s, out)
		}
	}
}

func (tm *terminal) String() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.String()
}

func (tm *terminal) typeKeys(s string) {
	tm.t.Helper()
	if _, err := tm.ptmx.Write([]byte(s)); err != nil {
		tm.t.Fatal(err)
	}
}

func TestConsoleCLI_AttachTakesTheKeyboard(t *testing.T) {
	s, sock := startConsoleServer(t)
	var started struct {
		SessionID string `json:"session_id"`
	}
	s.call("start_process", map[string]any{"argv": []string{"python3", "-q"}, "until": ">>> "}, &started)
	id := started.SessionID

	cmd := selfCommand(t, "attach", id)
	cmd.Env = append(cmd.Env, "AGENTTY_SOCKET="+sock)
	tm := startTerminal(t, cmd, 30, 100)
	tm.waitFor("[agentty: attached to " + id + "; Ctrl-] then d detaches")
	tm.waitFor(">>> ")
	tm.typeKeys("print(6*7)\r")
	tm.waitFor("42\r\n>>> ")

	msg := s.toolError("send_input", map[string]any{"session_id": id, "text": "print(1)", "enter": true})
	if want := "a person is typing in session " + id + " via attach; read_output still works; the lease ends 30 s after their last key or when they detach"; !strings.Contains(msg, want) {
		t.Errorf("send_input while attached = %q, want %q", msg, want)
	}
	var info struct {
		Holder     string `json:"holder"`
		Rows, Cols int
	}
	s.call("get_session_info", map[string]any{"session_id": id}, &info)
	if info.Holder != "attach" || info.Rows != 30 || info.Cols != 100 {
		t.Errorf("get_session_info = %+v, want holder attach and the person's 30x100", info)
	}
	if out := cli(t, sock, "ls"); !regexpMatch(`(?m)^`+id+` +awaiting_input +\S+ +attach +local +python3 -q$`, out) {
		t.Errorf("ls while attached:\n%s", out)
	}

	tm.typeKeys("\x1dd") // Ctrl-] d
	tm.waitFor("[agentty: detached]")
	<-tm.done
	if err := cmd.Wait(); err != nil {
		t.Errorf("attach exited with %v after detaching", err)
	}
	// Detaching released the keyboard before the connection closed.
	var reply readResult
	s.call("send_input", map[string]any{"session_id": id, "text": "print(7*6)", "enter": true, "until": ">>> "}, &reply)
	if !strings.Contains(reply.Output, "42") {
		t.Errorf("send_input after detach = %q", reply.Output)
	}
}

func TestConsoleCLI_LogsKillExport(t *testing.T) {
	s, sock := startConsoleServer(t)
	var started struct {
		SessionID string `json:"session_id"`
	}
	s.call("start_process", map[string]any{"argv": []string{"python3", "-q"}, "until": ">>> "}, &started)
	id := started.SessionID
	s.call("send_input", map[string]any{"session_id": id, "text": "print(6*7)", "enter": true, "until": ">>> "}, nil)

	if out, want := cli(t, sock, "logs", id), ">>> print(6*7)\n42\n>>> "; out != want {
		t.Errorf("logs = %q, want %q", out, want)
	}
	if out, want := cli(t, sock, "logs", "-since-line", "1", id), "42\n>>> "; out != want {
		t.Errorf("logs -since-line 1 = %q, want %q", out, want)
	}
	if out, want := cli(t, sock, "logs", id, "-raw"), ">>> print(6*7)\r\n42\r\n>>> "; out != want {
		t.Errorf("logs -raw = %q, want %q", out, want)
	}

	// logs -f prints until the session ends, which kill makes happen.
	follow := selfCommand(t, "logs", "-f", id)
	follow.Env = append(follow.Env, "AGENTTY_SOCKET="+sock)
	var followed strings.Builder
	follow.Stdout = &followed
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	if out := cli(t, sock, "kill", id); out != id+" exited: killed by SIGTERM\n" {
		t.Errorf("kill = %q", out)
	}
	if err := follow.Wait(); err != nil {
		t.Errorf("logs -f: %v", err)
	}
	if want := ">>> print(6*7)\n42\n>>> "; !strings.HasPrefix(followed.String(), want) {
		t.Errorf("logs -f = %q, want it to start with %q", followed.String(), want)
	}

	cast := cli(t, sock, "export", id)
	if !strings.HasPrefix(cast, `{"version":2,"width":120,"height":40,`) || !strings.Contains(cast, `42\r\n>>> "]`) {
		t.Errorf("export = %q", cast)
	}
	if out := cli(t, sock, "export", "-format", "text", id); !strings.HasPrefix(out, ">>> print(6*7)\n42\n>>> ") {
		t.Errorf("export -format text = %q", out)
	}

	cmd := selfCommand(t, "logs", "nope")
	cmd.Env = append(cmd.Env, "AGENTTY_SOCKET="+sock)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), `session not found: "nope"`) {
		t.Errorf("logs of an unknown session: %v %q", err, out)
	}
}

// An unknown session is refused before anything says it is attached.
func TestConsoleCLI_AttachUnknownSession(t *testing.T) {
	_, sock := startConsoleServer(t)
	for _, args := range [][]string{{"attach", "s999"}, {"attach", "-read-only", "s999"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := selfCommand(t, args...)
			cmd.Env = append(cmd.Env, "AGENTTY_SOCKET="+sock)
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || string(out) != "agentty attach: session not found: \"s999\"\n" {
				t.Errorf("%v: %v %q, want exit 1 and only the error", args, err, out)
			}
		})
	}
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
