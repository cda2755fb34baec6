package main

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/daemon"
	"github.com/agentty/agentty/internal/toolcall"
)

// innerServe is what a hostile program in a session runs: agentty serve
// on the daemon's socket ($AGENTTY_SOCKET), fed an initialize and a
// run_command that writes $OUTSIDE/pwned, printing each line the serve
// answers. $RUN prefixes the serve (e.g. an orphan that left the tree).
const innerServe = `exec 2>&1
trap '' PIPE
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"inner","version":"1"}}}'
call='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_command","arguments":{"argv":["sh","-c","echo pwned > '"$OUTSIDE"'/pwned"]}}}'
coproc S { $RUN env HOME="$HOME" AGENTTY_E2E_MAIN=1 AGENTTY_STANDALONE= AGENTTY_SOCKET="$AGENTTY_SOCKET" "$EXE" serve; echo "serve exit $?"; }
exec 3<&"${S[0]}" 4>&"${S[1]}"
echo "$init" >&4
IFS= read -r -t 60 a <&3; echo "1: $a"
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$call" >&4 2>/dev/null
IFS= read -r -t 60 b <&3; echo "2: $b"
`

// doorsDaemon is a daemon (with its web view) for the door tests, an MCP
// client of it, its log file and the web view's host:port.
type doorsDaemon struct {
	h       *daemonHome
	s       *server
	log     string
	webHost string
	exe     string
	pid     int // the daemon's
}

func startDoorsDaemon(t *testing.T, flags ...string) *doorsDaemon {
	t.Helper()
	h := newDaemonHome(t)
	dd := &doorsDaemon{h: h, log: filepath.Join(t.TempDir(), "daemon.log")}
	ready, readyW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer ready.Close()
	args := append([]string{"daemon", "-socket", h.socket, "-web", "127.0.0.1:0", "-idle", "0", "-log-file", dd.log, "-ready-fd", "3"}, flags...)
	d := h.command(t, args...)
	d.ExtraFiles = []*os.File{readyW}
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	readyW.Close()
	t.Cleanup(func() { _ = d.Process.Kill(); _ = d.Wait() })
	dd.pid = d.Process.Pid
	line, _ := bufio.NewReader(ready).ReadString('\n')
	if strings.TrimSpace(line) != daemon.ReadyListening {
		t.Fatalf("daemon reported %q, want %q", line, daemon.ReadyListening)
	}
	dd.s = h.serve(t, nil, flags...)
	login := webLoginURL(t, []string{standaloneEnv + "=", "AGENTTY_SOCKET=" + h.socket, "XDG_STATE_HOME=" + h.state}, "-socket", h.socket)
	u, err := url.Parse(login)
	if err != nil {
		t.Fatal(err)
	}
	dd.webHost = u.Host
	if dd.exe, err = os.Executable(); err != nil {
		t.Fatal(err)
	}
	return dd
}

// run starts script under bash in a session (with sandbox and limits when
// not nil), waits for its exit and returns its id and everything it
// printed.
func (dd *doorsDaemon) run(t *testing.T, sandbox, limits map[string]any, script string, env map[string]string) (id, out string) {
	t.Helper()
	return runIn(t, dd.s, sandbox, limits, script, env)
}

// runIn is run in the server s is a client of.
func runIn(t *testing.T, s *server, sandbox, limits map[string]any, script string, env map[string]string) (id, out string) {
	t.Helper()
	var r struct {
		SessionID string `json:"session_id"`
		Output    string `json:"output"`
		State     string `json:"state"`
	}
	args := map[string]any{"argv": []string{"bash", "-c", script}, "cwd": t.TempDir(), "mode": "pipe",
		"return_on": []string{"exit"}, "timeout_ms": 30000}
	for k, v := range map[string]any{"sandbox": sandbox, "limits": limits} {
		if v != nil {
			args[k] = v
		}
	}
	if env != nil {
		args["env"] = env
	}
	s.call("start_process", args, &r)
	if r.State != "exited" {
		t.Fatalf("session %s is %s, output %q", r.SessionID, r.State, r.Output)
	}
	return r.SessionID, r.Output
}

// innerServe runs innerServe in a session and checks the serve was
// refused with refusal (a regexp) and wrote nothing outside.
func (dd *doorsDaemon) innerServe(t *testing.T, sandbox, limits map[string]any, run string) (id, out string) {
	t.Helper()
	return dd.innerServeIn(t, dd.s, sandbox, limits, run)
}

// innerServeIn is innerServe in a session of the server s is a client of.
func (dd *doorsDaemon) innerServeIn(t *testing.T, s *server, sandbox, limits map[string]any, run string) (id, out string) {
	t.Helper()
	outside := t.TempDir()
	id, out = runIn(t, s, sandbox, limits, innerServe, map[string]string{"EXE": dd.exe, "OUTSIDE": outside, "AGENTTY_SOCKET": dd.h.socket, "RUN": run})
	if _, err := os.Stat(filepath.Join(outside, "pwned")); err == nil {
		t.Fatalf("session %s acted through the daemon beyond its limits; it printed:\n%s", id, out)
	}
	return id, out
}

// refused checks the daemon logged a refusal of door for session id.
func (dd *doorsDaemon) refused(t *testing.T, door, id, why string, orphan bool) {
	t.Helper()
	b, _ := os.ReadFile(dd.log)
	o := "false"
	if orphan {
		o = "true"
	}
	want := regexp.MustCompile(`level=WARN msg="refused a connection from a contained session" door="` + door + `" session=` + id +
		` pid=\d+ why="?` + why + `"? orphan=` + o + "\n")
	if !want.Match(b) {
		t.Errorf("daemon log has no refusal matching %s:\n%s", want, b)
	}
}

// refusal is the error a refused client reports.
func refusal(door, id, held string) string {
	return `agentty refuses the ` + door + ` to process \d+ ` + held + `: nothing a held session runs may act through agentty beyond its limits`
}

// TestDoors_SandboxedSession: nothing a sandboxed session runs reaches
// the unsandboxed daemon through one of agentty's doors. Landlock keeps
// the program from writing outside its cwd, but does not govern connect(2)
// to the daemon's socket, so before the peer check an agentty serve inside
// the session ran a run_command outside the sandbox. Each door refuses the
// session's processes and the daemon logs the session the connection came
// from.
func TestDoors_SandboxedSession(t *testing.T) {
	t.Parallel()
	dd := startDoorsDaemon(t)
	sandboxed := map[string]any{"filesystem": "readonly", "no_network": true}
	t.Run("daemon socket", func(t *testing.T) {
		id, out := dd.innerServe(t, sandboxed, nil, "")
		want := regexp.MustCompile(`^agentty serve: daemon status: 403 Forbidden: ` + refusal("daemon socket", id, `of session `+id+`, which is held \(sandbox\)`) +
			"\n1: serve exit 1\n2: \n$")
		if !want.MatchString(out) {
			t.Fatalf("inner serve printed %q, want a match for %s", out, want)
		}
		dd.refused(t, "daemon socket", id, "sandbox", false)
	})
	t.Run("agentty web", func(t *testing.T) {
		// The route that opens the web view is behind the socket's checks.
		id, out := dd.run(t, sandboxed, nil, `AGENTTY_E2E_MAIN=1 "$EXE" web -no-open -socket "$AGENTTY_SOCKET"; echo "exit $?"`,
			map[string]string{"EXE": dd.exe, "AGENTTY_SOCKET": dd.h.socket})
		want := regexp.MustCompile(`^agentty web: daemon web view: 403 Forbidden: ` + refusal("daemon socket", id, `of session `+id+`, which is held \(sandbox\)`) + "\nexit 1\n$")
		if !want.MatchString(out) {
			t.Fatalf("agentty web in a sandboxed session printed %q, want a match for %s", out, want)
		}
		dd.refused(t, "daemon socket", id, "sandbox", false)
	})
	t.Run("askpass socket", func(t *testing.T) {
		id, out := dd.run(t, sandboxed, nil, `"$SUDO_ASKPASS" 'Password: '; echo "exit $?"`, nil)
		want := regexp.MustCompile(`^agentty askpass: ` + refusal("askpass socket", id, `of session `+id+`, which is held \(sandbox\)`) + "\nexit 1\n$")
		if !want.MatchString(out) {
			t.Fatalf("askpass printed %q, want a match for %s", out, want)
		}
		dd.refused(t, "askpass socket", id, "sandbox", false)
	})
	t.Run("web port", func(t *testing.T) {
		// No private network: the program shares the daemon's loopback.
		id, out := dd.run(t, map[string]any{"filesystem": "readonly"}, nil,
			`curl -s -o /dev/null -w '%{http_code}\n' http://`+dd.webHost+`/healthz; echo "curl exit $?"`, nil)
		if out != "000\ncurl exit 52\n" && out != "000\ncurl exit 56\n" {
			t.Fatalf("the sandboxed session reached the web port: %q", out)
		}
		dd.refused(t, "web port", id, "sandbox", false)
	})
	t.Run("signals", func(t *testing.T) {
		// Landlock's signal scope: the daemon is out of reach, the
		// session's own jobs are not.
		_, out := dd.run(t, map[string]any{"filesystem": "readonly"}, nil,
			`kill -0 `+strconv.Itoa(dd.pid)+` 2>&1; echo "daemon $?"; sleep 60 & kill $!; wait $!; echo "own job $?"`, nil)
		want := regexp.MustCompile(`^bash: line 1: kill: \(` + strconv.Itoa(dd.pid) + `\) - Operation not permitted\ndaemon 1\nown job 143\n$`)
		if !want.MatchString(out) {
			t.Fatalf("the sandboxed session printed %q, want a match for %s", out, want)
		}
	})
}

// TestDoors_HeldSessions: the daemon socket refuses every process of a
// held session however it got there: one that left the tree (setsid, a
// cleared environment: the server adopted it) and in either containment
// mode, a session under limits only, a sandboxed session of another
// agentty server (which the daemon does not know), and a process an
// unheld session put under no_new_privs itself.
func TestDoors_HeldSessions(t *testing.T) {
	t.Parallel()
	sandboxed := map[string]any{"filesystem": "readonly"}
	orphan := "setsid -f env -i"
	for _, mode := range []struct {
		name  string
		flags []string
	}{{"cgroup", nil}, {"process tree", []string{"-cgroups=false"}}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			dd := startDoorsDaemon(t, mode.flags...)
			t.Run("sandboxed", func(t *testing.T) {
				id, out := dd.innerServe(t, sandboxed, nil, "")
				if !regexp.MustCompile(refusal("daemon socket", id, `of session `+id+`, which is held \(sandbox\)`)).MatchString(out) {
					t.Fatalf("inner serve printed %q", out)
				}
				dd.refused(t, "daemon socket", id, "sandbox", false)
			})
			t.Run("orphan", func(t *testing.T) {
				id, out := dd.innerServe(t, sandboxed, nil, orphan)
				held, orphaned := `of session `+id+`, which is held \(sandbox\)`, false
				if mode.flags != nil {
					// Without a cgroup the adopted orphan's session is unknown.
					held, orphaned, id = `an orphan agentty adopted while it holds session s\d+ \(sandbox\)`, true, `s\d+`
				}
				if !regexp.MustCompile(refusal("daemon socket", id, held)).MatchString(out) {
					t.Fatalf("inner serve printed %q", out)
				}
				dd.refused(t, "daemon socket", id, "sandbox", orphaned)
			})
			t.Run("limits only", func(t *testing.T) {
				id, out := dd.innerServe(t, nil, map[string]any{"cpu_seconds": 600}, "")
				if !regexp.MustCompile(refusal("daemon socket", id, `of session `+id+`, which is held \(limits\)`)).MatchString(out) {
					t.Fatalf("inner serve printed %q", out)
				}
				dd.refused(t, "daemon socket", id, "limits", false)
			})
			t.Run("sandboxed session of another agentty server", func(t *testing.T) {
				other := startServerWith(t, nil, mode.flags...)
				_, out := dd.innerServeIn(t, other, sandboxed, nil, "")
				if !regexp.MustCompile(refusal("daemon socket", "", `under another agentty server, which is held \(no_new_privs\)`)).MatchString(out) {
					t.Fatalf("inner serve printed %q", out)
				}
				dd.refused(t, "daemon socket", `""`, "no_new_privs", false)
			})
			t.Run("no_new_privs inside an unheld session", func(t *testing.T) {
				id, out := dd.innerServe(t, nil, nil, "setpriv --no-new-privs")
				if !regexp.MustCompile(refusal("daemon socket", id, `of session `+id+`, which is held \(no_new_privs\)`)).MatchString(out) {
					t.Fatalf("inner serve printed %q", out)
				}
				dd.refused(t, "daemon socket", id, "no_new_privs", false)
			})
		})
	}
}

// TestDoors_HTTPPort: serve -http refuses a sandboxed session's
// connections to its port (sharing the server's loopback, the session
// could otherwise call tools as the server), and still serves an unheld
// session's.
func TestDoors_HTTPPort(t *testing.T) {
	t.Parallel()
	hs := startHTTPServer(t, nil)
	cs := hs.connect(hs.bannerToken())
	health := `curl -s -o /dev/null -w '%{http_code}\n' ` + strings.TrimSuffix(hs.url, "/mcp") + `/healthz; echo "curl exit $?"`
	run := func(sandbox map[string]any) (id, out string) {
		t.Helper()
		var r struct {
			SessionID string `json:"session_id"`
			Output    string `json:"output"`
		}
		args := map[string]any{"argv": []string{"bash", "-c", health}, "cwd": t.TempDir(), "mode": "pipe",
			"return_on": []string{"exit"}, "timeout_ms": 30000}
		if sandbox != nil {
			args["sandbox"] = sandbox
		}
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		if _, err := toolcall.Call(ctx, cs, "start_process", args, &r); err != nil {
			t.Fatal(err)
		}
		return r.SessionID, r.Output
	}
	if _, out := run(nil); out != "200\ncurl exit 0\n" {
		t.Fatalf("an unheld session's request: %q, want 200", out)
	}
	id, out := run(map[string]any{"filesystem": "readonly"})
	if out != "000\ncurl exit 52\n" && out != "000\ncurl exit 56\n" {
		t.Fatalf("the sandboxed session reached the HTTP port: %q", out)
	}
	want := regexp.MustCompile(`level=WARN msg="refused a connection from a contained session" door="http port" session=` + id + ` pid=\d+ why=sandbox orphan=false\n`)
	if log := readFile(t, hs.stderr); !want.MatchString(log) {
		t.Errorf("server log has no refusal matching %s:\n%s", want, log)
	}
}
