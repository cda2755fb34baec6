package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/gate"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/shell"
)

// registerShellTools adds the shell and one-shot command tools.
func (t *tools) registerShellTools(srv *mcp.Server) {
	add(srv, t.log, &mcp.Tool{Name: "open_shell", Description: "Open a persistent shell (bash, zsh, sh; pwsh or cmd on Windows) for exec_command: cwd, variables and venvs carry over. host opens it over SSH.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)}}, t.openShell)
	add(srv, t.log, &mcp.Tool{Name: "exec_command", Description: "Run shell text in an open_shell shell; return its own output (no echo or prompt), exit code and cwd. If it awaits input, answer with send_input, then await_command.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)}}, t.execCommand)
	add(srv, t.log, &mcp.Tool{Name: "await_command", Description: "Wait for the command exec_command started to finish; return its new output, exit code and cwd.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.awaitCommand)
	add(srv, t.log, &mcp.Tool{Name: "retry_command", Description: "Run a shell command until it succeeds or max_retries runs out; return every attempt.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)}}, t.retryCommand)
	add(srv, t.log, &mcp.Tool{Name: "diff_commands", Description: "Run two commands in a shell and return a unified diff of their outputs.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)}}, t.diffCommands)
	add(srv, t.log, &mcp.Tool{Name: "write_file", Description: "Write or append content to a file as is (no shell quoting), atomically; a relative path is in the session_id shell's cwd.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true)}}, t.writeFile)
	add(srv, t.log, &mcp.Tool{Name: "run_command", Description: "Run argv without a shell; return exit code, stdout and stderr apart, and common git output parsed. host runs it over SSH.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)}}, t.runCommand)
}

// Text implements texter.
func (r OpenShellResult) Text() string {
	s := fmt.Sprintf("opened %s %s (pid %d) in %s", r.Shell, r.SessionID, r.PID, r.Cwd)
	if r.Host != "" {
		s = fmt.Sprintf("opened %s %s on %s (remote pid %d) in %s", r.Shell, r.SessionID, r.Host, r.PID, r.Cwd)
	}
	if r.Banner != "" {
		s += "\n" + r.Banner
	}
	return s
}

func (t *tools) openShell(ctx context.Context, req *mcp.CallToolRequest, in OpenShellInput) (OpenShellResult, error) {
	// The shell program itself passes the policy like any start (secure
	// mode runs no shells); each command typed into it is checked later.
	if in.Host != "" {
		if err := t.admitRemoteShell(ctx, req, in); err != nil {
			return OpenShellResult{}, err
		}
	} else if _, path, err := shell.Detect(in.Shell, clientEnv(ctx, "")); err == nil {
		if err := t.admitShell(ctx, req, path, in); err != nil {
			return OpenShellResult{}, err
		}
	}
	o := shell.OpenOptions{Shell: in.Shell, Cwd: in.Cwd, Env: in.Env, Rows: in.Rows, Cols: in.Cols, Name: in.Name, NoRC: in.NoRC,
		Host: in.Host, AcceptNewHostKey: in.AcceptNewHostKey, Base: clientEnv(ctx, in.Host)}
	if in.Host != "" {
		if t.remote == nil {
			return OpenShellResult{}, fmt.Errorf("%w: remote hosts are not enabled in this server; open a local shell (no host)", session.ErrBadArgs)
		}
		o.Remote = t.remote
	}
	if in.TimeoutMs != nil {
		if *in.TimeoutMs <= 0 {
			return OpenShellResult{}, fmt.Errorf("%w: timeout_ms must be > 0", session.ErrBadArgs)
		}
		o.Wait = min(time.Duration(*in.TimeoutMs)*time.Millisecond, session.MaxWait)
	}
	sh, banner, err := t.shells.Open(ctx, o)
	if err != nil {
		return OpenShellResult{}, err
	}
	s := sh.Session()
	return OpenShellResult{SessionID: s.ID, Name: s.Name, Shell: string(sh.Kind), Path: sh.Path, PID: s.PID(), Cwd: sh.Cwd(), Banner: banner, Host: s.Host()}, nil
}

func (l ExecLimits) options() (shell.ExecOptions, error) {
	var o shell.ExecOptions
	if l.TimeoutMs != nil {
		if *l.TimeoutMs <= 0 {
			return o, fmt.Errorf("%w: timeout_ms must be > 0", session.ErrBadArgs)
		}
		o.Timeout = time.Duration(*l.TimeoutMs) * time.Millisecond
	}
	if l.MaxLines != nil {
		switch {
		case *l.MaxLines < 0:
			return o, fmt.Errorf("%w: max_lines must be >= 0", session.ErrBadArgs)
		case *l.MaxLines == 0:
			o.MaxLines = -1
		default:
			o.MaxLines = *l.MaxLines
		}
	}
	if l.MaxBytes < 0 || l.MaxBytes > session.MaxBytesCap {
		return o, fmt.Errorf("%w: max_bytes must be between 1 and %d", session.ErrBadArgs, session.MaxBytesCap)
	}
	o.MaxBytes = l.MaxBytes
	on, err := returnOn(l.ReturnOn, onInput, onExit)
	if err != nil {
		return o, err
	}
	o.IgnoreInput = !on[onInput]
	return o, nil
}

func execResult(s *session.Session, r shell.Result) ExecResult {
	out := ExecResult{SessionID: s.ID, CommandID: r.ID, Output: r.Output, ExitCode: r.ExitCode, Cwd: r.Cwd,
		DurationMs: float64(r.Duration.Microseconds()) / 1000, TimedOut: r.TimedOut, Running: r.Running,
		OutputBytes: r.OutputBytes, OutputLines: r.OutputLines, Truncated: r.Truncated,
		OmittedLines: r.OmittedLines, OmittedBytes: r.OmittedBytes, StateDetail: r.InputDetail}
	switch {
	case r.ShellExited:
		out.State = "shell_exited"
		if st := r.ShellExit; st != nil {
			if st.Signal != "" {
				out.ShellSignal = st.Signal
			} else {
				code := st.Code
				out.ShellExitCode = &code
			}
		}
		out.Hint = "the shell itself exited during this command (exit, set -e, or killed); open a new one with open_shell"
	case r.InputState == record.StateAwaitingPassword:
		out.State = string(r.InputState)
		out.Hint = passwordHint(s.ID) + "; then await_command for the rest"
	case r.InputState != "":
		out.State = string(r.InputState)
		out.Hint = "the command waits for input: answer with send_input, then await_command for the rest (or send_input keys [\"ctrl+c\"])"
	case r.Running:
		out.State = "running"
		out.Hint = "still running after the timeout: await_command waits more, read_output shows new output, send_input keys [\"ctrl+c\"] interrupts"
	default:
		out.State = "done"
	}
	if r.Truncated && out.Hint == "" {
		out.Hint = "output was cut (head and tail kept); raise max_lines/max_bytes, or use run_command with page for huge read-only output"
	}
	return out
}

// Text implements texter.
func (r ExecResult) Text() string {
	var b strings.Builder
	b.WriteString(r.Output)
	if r.Output != "" && !strings.HasSuffix(r.Output, "\n") {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "[%s %s", r.SessionID, r.State)
	if r.ExitCode != nil {
		fmt.Fprintf(&b, " exit=%d", *r.ExitCode)
	}
	if r.ShellExitCode != nil {
		fmt.Fprintf(&b, " shell_exit=%d", *r.ShellExitCode)
	}
	if r.ShellSignal != "" {
		fmt.Fprintf(&b, " shell_signal=%s", r.ShellSignal)
	}
	fmt.Fprintf(&b, " | cwd=%s | %.1f ms", r.Cwd, r.DurationMs)
	if r.Truncated {
		fmt.Fprintf(&b, " | truncated %d lines", r.OmittedLines)
	}
	b.WriteString("]")
	if r.Hint != "" {
		b.WriteString("\nhint: " + r.Hint)
	}
	return b.String()
}

func (t *tools) execCommand(ctx context.Context, req *mcp.CallToolRequest, in ExecInput) (ExecResult, error) {
	return t.shellWait(ctx, req, in.SessionID, in.ExecLimits, func(sh *shell.Shell, o shell.ExecOptions) (shell.Result, error) {
		return t.execIn(ctx, req, "exec_command", sh, in.Command, o)
	})
}

// shellWait runs one exec_command or await_command step in a shell session,
// with progress notifications of the command's own output when the client
// asked for them.
func (t *tools) shellWait(ctx context.Context, req *mcp.CallToolRequest, id string, lim ExecLimits, run func(*shell.Shell, shell.ExecOptions) (shell.Result, error)) (ExecResult, error) {
	sh, err := t.shells.Get(id)
	if err != nil {
		return ExecResult{}, err
	}
	o, err := lim.options()
	if err != nil {
		return ExecResult{}, err
	}
	p := shell.NewProgress()
	o.OnOutput = p.OnOutput
	stop := ReportProgress(ctx, req, p)
	r, err := run(sh, o)
	stop()
	if err != nil {
		return ExecResult{}, err
	}
	return execResult(sh.Session(), r), nil
}

// execIn admits a script and runs it in sh.
func (t *tools) execIn(ctx context.Context, req *mcp.CallToolRequest, tool string, sh *shell.Shell, script string, o shell.ExecOptions) (shell.Result, error) {
	if err := t.admit(ctx, req, gate.Command{Tool: tool, Session: sh.Session().ID, Script: script, Cwd: sh.Cwd(), Host: sh.Host()}); err != nil {
		return shell.Result{}, err
	}
	return sh.Exec(ctx, script, o)
}

func (t *tools) awaitCommand(ctx context.Context, req *mcp.CallToolRequest, in AwaitInput) (ExecResult, error) {
	return t.shellWait(ctx, req, in.SessionID, in.ExecLimits, func(sh *shell.Shell, o shell.ExecOptions) (shell.Result, error) {
		return sh.Await(ctx, o)
	})
}
