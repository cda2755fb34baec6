package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/gate"
	"github.com/agentty/agentty/internal/gitparse"
	"github.com/agentty/agentty/internal/runner"
	"github.com/agentty/agentty/internal/session"
)

// Text implements texter.
func (r RunResult) Text() string {
	var b strings.Builder
	if r.Summary != "" {
		b.WriteString(r.Summary + "\n")
	}
	b.WriteString(r.Stdout.Text)
	if r.Stdout.Text != "" && !strings.HasSuffix(r.Stdout.Text, "\n") {
		b.WriteString("\n")
	}
	if r.Stderr.Text != "" {
		b.WriteString("[stderr]\n" + r.Stderr.Text)
		if !strings.HasSuffix(r.Stderr.Text, "\n") {
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "[ok=%v", r.OK)
	if r.ExitCode != nil {
		fmt.Fprintf(&b, " exit=%d", *r.ExitCode)
	}
	if r.Signal != "" {
		fmt.Fprintf(&b, " signal=%s", r.Signal)
	}
	if r.TimedOut {
		b.WriteString(" timed_out")
	}
	fmt.Fprintf(&b, " | stdout %dB/%dL stderr %dB/%dL | %.1f ms", r.Stdout.Bytes, r.Stdout.Lines, r.Stderr.Bytes, r.Stderr.Lines, r.DurationMs)
	if r.Page != nil {
		fmt.Fprintf(&b, " | page %d of %d lines, has_next=%v", r.Page.Page, r.Page.TotalLines, r.Page.HasNext)
	}
	b.WriteString("]")
	for _, c := range r.Checks {
		if !c.OK {
			fmt.Fprintf(&b, "\nfailed check %s: %s", c.Name, c.Detail)
		}
	}
	if r.Rounds != nil {
		fmt.Fprintf(&b, "\n[interactive session %s: %d rounds]", r.SessionID, *r.Rounds)
	}
	if r.Note != "" {
		b.WriteString("\nnote: " + r.Note)
	}
	if r.Hint != "" {
		b.WriteString("\nhint: " + r.Hint)
	}
	return b.String()
}

func (t *tools) runCommand(ctx context.Context, req *mcp.CallToolRequest, in RunInput) (RunResult, error) {
	if in.Interactive {
		return t.runInteractive(ctx, req, in)
	}
	if in.MaxRounds != 0 || in.Mode != "" || in.Until != "" || in.SettleMs != nil {
		return RunResult{}, fmt.Errorf("%w: max_rounds, mode, until and settle_ms go with interactive: true", session.ErrBadArgs)
	}
	o := runner.Options{Argv: in.Argv, Cwd: in.Cwd, Env: in.Env, Stdin: in.Stdin, MaxOutputBytes: in.MaxOutputBytes,
		SuccessExitCode: in.SuccessExitCode, AnyExitCode: in.AnyExitCode, SuccessFile: in.SuccessFile,
		SuccessFilePattern: in.SuccessFilePattern, PageSize: in.PageSize, Host: in.Host, AcceptNewHostKey: in.AcceptNewHostKey,
		Base: clientEnv(ctx, in.Host)}
	if in.TimeoutMs != nil {
		if *in.TimeoutMs <= 0 {
			return RunResult{}, fmt.Errorf("%w: timeout_ms must be > 0", session.ErrBadArgs)
		}
		o.Timeout = time.Duration(*in.TimeoutMs) * time.Millisecond
	}
	if in.Page != nil || in.PageSize != 0 {
		o.Paged = true
		if in.Page != nil {
			o.Page = *in.Page
		}
	}
	if err := t.admit(ctx, req, gate.Command{Tool: "run_command", Argv: in.Argv, Env: in.Env, Cwd: in.Cwd, Host: in.Host}); err != nil {
		return RunResult{}, err
	}
	r, err := t.runner.Run(ctx, o)
	if err != nil {
		return RunResult{}, err
	}
	res := RunResult{OK: r.OK, Argv: r.Argv, Cwd: r.Cwd, ExitCode: r.ExitCode, Signal: r.Signal, TimedOut: r.TimedOut,
		DurationMs: float64(r.Duration.Microseconds()) / 1000, Stdout: Stream(r.Stdout), Stderr: Stream(r.Stderr), Checks: runChecks(r.Checks), Page: runPage(r.Page)}
	if in.Parse == nil || *in.Parse || in.Summary {
		_, supported := gitparse.Parse(in.Argv, "")
		switch p, ok := gitparse.Parse(in.Argv, r.Full); {
		case ok && !r.Stdout.Truncated && r.ExitCode != nil && *r.ExitCode == 0:
			res.Parsed = wireParsed(p)
		case supported && r.Stdout.Truncated:
			res.Hint = "stdout was cut, so it was not parsed; raise max_output_bytes or use page"
		case !supported && parserWorthy(in.Argv, r):
			res.Hint = "no structured parser for this command signature; supported: git status --porcelain/--short, log --oneline, branch, diff --name-only/--name-status/--stat/--shortstat, rev-parse, remote -v, ls-files, which"
		}
	}
	if res.Parsed != nil {
		if in.Summary {
			res.Summary = res.Parsed.Summary
			res.Parsed = nil
			res.Stdout.Text = ""
		} else if in.ParseOnly {
			res.Stdout.Text = ""
		}
	}
	if r.TimedOut {
		res.Hint = "killed after timeout_ms; for long or interactive programs use start_process or exec_command in open_shell"
	}
	return res, nil
}

// parserWorthy: a successful git or which run with enough output that
// structure would have helped, so the agent learns what is supported.
func parserWorthy(argv []string, r runner.Result) bool {
	if len(argv) == 0 || r.ExitCode == nil || *r.ExitCode != 0 || r.Stdout.Bytes < 1024 {
		return false
	}
	name := filepath.Base(argv[0])
	return name == "git" || name == "which"
}
