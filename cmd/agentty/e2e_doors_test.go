package main

import (
	"bufio"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/daemon"
)

// innerServe is what a hostile program in a session runs: agentty serve
// on the daemon's socket, fed an initialize and a run_command that writes
// $OUTSIDE/pwned, printing each line the serve answers.
const innerServe = `exec 2>&1
trap '' PIPE
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"inner","version":"1"}}}'
call='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_command","arguments":{"argv":["sh","-c","echo pwned > '"$OUTSIDE"'/pwned"]}}}'
coproc S { AGENTTY_E2E_MAIN=1 AGENTTY_STANDALONE= "$EXE" serve; echo "serve exit $?"; }
exec 3<&"${S[0]}" 4>&"${S[1]}"
echo "$init" >&4
IFS= read -r -t 60 a <&3; echo "1: $a"
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$call" >&4 2>/dev/null
IFS= read -r -t 60 b <&3; echo "2: $b"
`

// TestDoors_SandboxedSession: nothing a sandboxed session runs reaches
// the unsandboxed daemon through one of agentty's doors. Landlock keeps
// the program from writing outside its cwd, but does not govern connect(2)
// to the daemon's socket, so before the peer check an agentty serve inside
// the session ran a run_command outside the sandbox. Each door refuses the
// session's processes and the daemon logs the session the connection came
// from.
func TestDoors_SandboxedSession(t *testing.T) {
	t.Parallel()
	h := newDaemonHome(t)
	logPath := filepath.Join(t.TempDir(), "daemon.log")
	ready, readyW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer ready.Close()
	d := h.command(t, "daemon", "-socket", h.socket, "-web", "127.0.0.1:0", "-idle", "0", "-log-file", logPath, "-ready-fd", "3")
	d.ExtraFiles = []*os.File{readyW}
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	readyW.Close()
	t.Cleanup(func() { _ = d.Process.Kill(); _ = d.Wait() })
	line, _ := bufio.NewReader(ready).ReadString('\n')
	if strings.TrimSpace(line) != daemon.ReadyListening {
		t.Fatalf("daemon reported %q, want %q", line, daemon.ReadyListening)
	}
	s := h.serve(t, nil)
	login := webLoginURL(t, []string{standaloneEnv + "=", "AGENTTY_SOCKET=" + h.socket, "XDG_STATE_HOME=" + h.state}, "-socket", h.socket)
	u, err := url.Parse(login)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// run starts script in a session under sandbox and returns its id and
	// everything it printed.
	run := func(t *testing.T, sandbox map[string]any, script string, env map[string]string) (id, out string) {
		t.Helper()
		var r struct {
			SessionID string `json:"session_id"`
			Output    string `json:"output"`
			State     string `json:"state"`
		}
		args := map[string]any{"argv": []string{"bash", "-c", script}, "cwd": t.TempDir(), "mode": "pipe",
			"sandbox": sandbox, "return_on": []string{"exit"}, "timeout_ms": 30000}
		if env != nil {
			args["env"] = env
		}
		s.call("start_process", args, &r)
		if r.State != "exited" {
			t.Fatalf("session %s is %s, output %q", r.SessionID, r.State, r.Output)
		}
		return r.SessionID, r.Output
	}
	refusedLog := func(t *testing.T, door, id, why string) {
		t.Helper()
		b, _ := os.ReadFile(logPath)
		want := regexp.MustCompile(`level=WARN msg="refused a connection from a contained session" door="` + door + `" session=` + id + ` pid=\d+ why=` + why + "\n")
		if !want.Match(b) {
			t.Errorf("daemon log has no refusal matching %s:\n%s", want, b)
		}
	}
	sandboxed := map[string]any{"filesystem": "readonly", "no_network": true}

	t.Run("daemon socket", func(t *testing.T) {
		outside := t.TempDir()
		id, out := run(t, sandboxed, innerServe, map[string]string{"EXE": exe, "OUTSIDE": outside, "AGENTTY_SOCKET": h.socket})
		if _, err := os.Stat(filepath.Join(outside, "pwned")); err == nil {
			t.Fatalf("the sandboxed session wrote outside its sandbox through the daemon; it printed:\n%s", out)
		}
		want := regexp.MustCompile(`^agentty serve: daemon status: 403 Forbidden: agentty refuses the daemon socket to process \d+: it belongs to session ` +
			id + `, which is held \(sandbox\), and nothing such a session runs may act through agentty beyond that\n1: serve exit 1\n2: \n$`)
		if !want.MatchString(out) {
			t.Fatalf("inner serve printed %q, want a match for %s", out, want)
		}
		refusedLog(t, "daemon socket", id, "sandbox")
	})
	t.Run("askpass socket", func(t *testing.T) {
		id, out := run(t, sandboxed, `"$SUDO_ASKPASS" 'Password: '; echo "exit $?"`, nil)
		want := regexp.MustCompile(`^agentty askpass: agentty refuses the askpass socket to process \d+: it belongs to session ` + id +
			`, which is held \(sandbox\), and nothing such a session runs may act through agentty beyond that\nexit 1\n$`)
		if !want.MatchString(out) {
			t.Fatalf("askpass printed %q, want a match for %s", out, want)
		}
		refusedLog(t, "askpass socket", id, "sandbox")
	})
	t.Run("web port", func(t *testing.T) {
		// No private network: the program shares the daemon's loopback.
		id, out := run(t, map[string]any{"filesystem": "readonly"},
			`curl -s -o /dev/null -w '%{http_code}\n' http://`+u.Host+`/healthz; echo "curl exit $?"`, nil)
		if out != "000\ncurl exit 52\n" && out != "000\ncurl exit 56\n" {
			t.Fatalf("the sandboxed session reached the web port: %q", out)
		}
		refusedLog(t, "web port", id, "sandbox")
	})
}
