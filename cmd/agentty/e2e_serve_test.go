package main

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"syscall"
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
	if code != 0 || out != "agentty "+version+"\n" {
		t.Errorf("version: exit %d, stdout %q; want 0 and %q", code, out, "agentty "+version+"\n")
	}
	out, errOut, code := runSelf("frobnicate")
	if code != 2 || out != "" || !strings.HasPrefix(errOut, `agentty: unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, stdout %q, stderr %q; want 2, nothing, the complaint", code, out, errOut)
	}
	_, errOut, code = runSelf()
	if code != 2 || !strings.Contains(errOut, "Usage:") {
		t.Errorf("no command: exit %d, stderr %q; want 2 and the usage", code, errOut)
	}

	t.Run("serve on a terminal prints connect help", func(t *testing.T) {
		cmd := selfCommand(t, "serve")
		ptmx, err := pty.Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		defer ptmx.Close()
		// The reader goroutine ends with EIO once the server and its guard,
		// the only holders of the terminal, have exited below.
		chunks := make(chan []byte)
		readDone := make(chan struct{})
		go func() {
			defer close(readDone)
			defer close(chunks)
			for {
				b := make([]byte, 4096)
				n, err := ptmx.Read(b)
				if n > 0 {
					chunks <- b[:n]
				}
				if err != nil {
					return
				}
			}
		}()
		var seen strings.Builder
		timeout := time.NewTimer(30 * time.Second)
		defer timeout.Stop()
	wait:
		for !strings.Contains(seen.String(), "Waiting for MCP messages") {
			select {
			case b, ok := <-chunks:
				if !ok {
					break wait
				}
				seen.Write(b)
			case <-timeout.C:
				break wait
			}
		}
		got := seen.String()
		if !strings.Contains(got, "claude mcp add agentty -- ") || !strings.Contains(got, " serve") ||
			!strings.Contains(got, "Waiting for MCP messages on stdin") {
			t.Errorf("serve on a tty printed %q, want the connect instructions", got)
		}
		// The help is printed before the SIGTERM handler is installed; the
		// guard starts after, so once it runs the signal means shutdown.
		waitGuard(t, cmd.Process.Pid)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		// Drain until EOF so the child never blocks on a full terminal.
		go func() {
			for range chunks {
			}
		}()
		err = cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("serve after SIGTERM: %v (exit %d), want exit 0", err, code)
		}
		select {
		case <-readDone:
		case <-time.After(30 * time.Second):
			t.Error("terminal still open 30 s after the server exited: something kept it")
		}
	})
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
