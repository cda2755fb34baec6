package main

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

func TestServe_ToolsList(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	if got := s.cs.InitializeResult().ServerInfo; got.Name != "agentty" || got.Version != version {
		t.Errorf("server info = %s %s, want agentty %s", got.Name, got.Version, version)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	tl, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"await_command", "delete_session", "diff_commands", "exec_command", "get_history", "get_message",
		"get_policy", "get_session_info", "list_hosts", "list_messages", "list_sessions", "open_shell", "read_output",
		"read_screen", "register_reader", "resize_pty", "retry_command", "run_command", "search_output", "send_input",
		"start_process", "terminate_process", "unregister_reader", "wait_sessions", "write_file"}
	var names []string
	for _, tool := range tl.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil {
			t.Errorf("%s has no input schema", tool.Name)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	var r readResult
	res := s.call("start_process", map[string]any{"command": `printf 'a\nb\n'`}, &r)
	if r.Output != "a\nb\n" || r.Reason != "exited" || r.State != "exited" || r.ExitCode == nil || *r.ExitCode != 0 || r.Signal != "" {
		t.Errorf("start_process printf = output %q reason %s state %s exit %v signal %q, want \"a\\nb\\n\" exited exited 0",
			r.Output, r.Reason, r.State, r.ExitCode, r.Signal)
	}
	if r.Mode != "pty" || r.PID <= 0 || r.SessionID != "s1" {
		t.Errorf("start_process printf = mode %q pid %d session %q, want pty, a pid, s1", r.Mode, r.PID, r.SessionID)
	}
	if res.StructuredContent == nil {
		t.Error("start_process result has no structuredContent")
	}
	if len(res.Content) != 1 {
		t.Fatalf("start_process result has %d content blocks, want 1 text block", len(res.Content))
	}
	text := allText(res)
	if !strings.HasPrefix(text, "started s1 (pid ") || !strings.Contains(text, "pty)\na\nb\n[s1 exited code=0 | reason=exited |") {
		t.Errorf("start_process text = %q, want the started line, the output and the status line", text)
	}
}

func TestServe_HelpVersion(t *testing.T) {
	t.Parallel()
	runSelf := func(args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := selfCommand(t, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("run %v: %v", args, err)
		}
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}

	out, _, code := runSelf("--help")
	if code != 0 || !strings.Contains(out, "agentty serve [flags]") || !strings.Contains(out, "claude mcp add agentty -- agentty serve") {
		t.Errorf("--help: exit %d, stdout %q; want 0 and the usage with serve", code, out)
	}
	out, _, code = runSelf("version")
	if code != 0 || out != versionLine()+"\n" {
		t.Errorf("version: exit %d, stdout %q; want 0 and %q", code, out, versionLine()+"\n")
	}
	out, errOut, code := runSelf("frobnicate")
	if code != 2 || out != "" || !strings.HasPrefix(errOut, `agentty: unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, stdout %q, stderr %q; want 2, nothing, the complaint", code, out, errOut)
	}
	_, errOut, code = runSelf()
	if code != 2 || !strings.Contains(errOut, "Usage:") {
		t.Errorf("no command: exit %d, stderr %q; want 2 and the usage", code, errOut)
	}

	// A person who types agentty serve gets the connect instructions and
	// the shell back: waiting for JSON-RPC typed by hand helps nobody. Via
	// the daemon, none is started for it.
	for _, tc := range []struct {
		name   string
		daemon bool
	}{{"standalone", false}, {"via the daemon", true}} {
		t.Run("serve on a terminal prints connect help and exits/"+tc.name, func(t *testing.T) {
			cmd := selfCommand(t, "serve")
			var h *daemonHome
			if tc.daemon {
				h = newDaemonHome(t)
				cmd = h.command(t, "serve")
			}
			ptmx, err := pty.Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			defer ptmx.Close()
			read := make(chan string, 1)
			go func() {
				b, _ := io.ReadAll(ptmx) // EIO once serve, the terminal's only holder, exits
				read <- string(b)
			}()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
				t.Fatal("serve on a terminal still waits 30 s later, want it to exit after the instructions")
			}
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("serve on a terminal exited %d, want 0", code)
			}
			var got string
			select {
			case got = <-read:
			case <-time.After(30 * time.Second):
				t.Fatal("terminal still open 30 s after serve exited: something kept it")
			}
			if !strings.Contains(got, "claude mcp add agentty -- ") || !strings.Contains(got, "To see it work without a client, run: ") ||
				strings.Contains(got, "Waiting") {
				t.Errorf("serve on a tty printed %q, want the connect instructions only", got)
			}
			if tc.daemon {
				if ds := h.daemons(); len(ds) != 0 {
					t.Errorf("serve on a terminal started daemons %v", ds)
				}
			}
		})
	}
}

func TestServe_Demo(t *testing.T) {
	t.Parallel()
	cmd := selfCommand(t, "demo")
	stdout, stderr := logFile(t, "demo.out"), logFile(t, "demo.err")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Stdin = nil
	err := cmd.Run()
	out := readFile(t, stdout)
	if err != nil {
		t.Fatalf("demo: %v\nstdout:\n%s\nstderr:\n%s", err, out, readFile(t, stderr))
	}
	for _, want := range []string{"connected to agentty serve over stdio; 25 tools: await_command, delete_session, ", "awaiting_input", "done: "} {
		if !strings.Contains(out, want) {
			t.Errorf("demo stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "✗") {
		t.Errorf("demo reported a failed step:\n%s", out)
	}
}
