package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/re2"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/shell"
)

// Text implements texter.
func (r RetryResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "success=%v after %d attempt(s)\n", r.Success, r.Attempts)
	for _, a := range r.History {
		code := "-"
		if a.ExitCode != nil {
			code = fmt.Sprint(*a.ExitCode)
		}
		fmt.Fprintf(&b, "  #%d exit=%s state=%s success=%v (%.0f ms, after %.0f ms pause)\n", a.Attempt, code, a.State, a.Success, a.DurationMs, a.DelayMs)
	}
	b.WriteString("last attempt:\n" + r.Last.Text())
	if r.Hint != "" {
		b.WriteString("\nhint: " + r.Hint)
	}
	return b.String()
}

func (t *tools) retryCommand(ctx context.Context, req *mcp.CallToolRequest, in RetryInput) (RetryResult, error) {
	sh, err := t.shells.Get(in.SessionID)
	if err != nil {
		return RetryResult{}, err
	}
	o, err := in.ExecLimits.options()
	if err != nil {
		return RetryResult{}, err
	}
	retries := 3
	if in.MaxRetries != nil {
		retries = *in.MaxRetries
	}
	if retries < 0 || retries > shell.MaxRetries {
		return RetryResult{}, fmt.Errorf("%w: max_retries must be between 0 and %d", session.ErrBadArgs, shell.MaxRetries)
	}
	switch in.Backoff {
	case "":
		in.Backoff = shell.BackoffExponential
	case shell.BackoffFixed, shell.BackoffLinear, shell.BackoffExponential:
	default:
		return RetryResult{}, fmt.Errorf("%w: backoff must be fixed, linear or exponential, not %s", session.ErrBadArgs, excerpt.Q(in.Backoff))
	}
	base := time.Second
	if in.DelayMs != nil {
		if *in.DelayMs < 0 || *in.DelayMs > int(shell.MaxRetryWait.Milliseconds()) {
			return RetryResult{}, fmt.Errorf("%w: delay_ms must be between 0 and %d", session.ErrBadArgs, shell.MaxRetryWait.Milliseconds())
		}
		base = time.Duration(*in.DelayMs) * time.Millisecond
	}
	r := shell.Retry{Retries: retries, Backoff: in.Backoff, Delay: base}
	if in.SuccessPattern != "" {
		if r.SuccessPattern, err = re2.Compile("(?m)" + in.SuccessPattern); err != nil {
			return RetryResult{}, fmt.Errorf("%w: success_pattern is not a valid RE2 regex: %v", session.ErrBadArgs, err)
		}
	}
	if in.SuccessExitCode != nil {
		r.SuccessExitCode = *in.SuccessExitCode
	}
	attempts, err := r.Run(ctx, func(ctx context.Context) (shell.Result, error) {
		return t.execIn(ctx, req, "retry_command", sh, in.Command, o)
	})
	var res RetryResult
	for _, a := range attempts {
		er := execResult(sh.Session(), a.Result)
		res.History = append(res.History, Attempt{Attempt: a.N, DelayMs: float64(a.Delay.Milliseconds()),
			ExitCode: er.ExitCode, State: er.State, Matched: a.Matched, Success: a.Success, DurationMs: er.DurationMs, OutputLines: er.OutputLines})
		res.Attempts, res.Last, res.Success = a.N, er, a.Success
	}
	if err != nil {
		return res, err
	}
	if !res.Success && res.Last.ExitCode == nil {
		res.Hint = "the last attempt did not finish (" + res.Last.State + "); " + res.Last.Hint
	}
	return res, nil
}

// Text implements texter.
func (r DiffResult) Text() string {
	if r.Identical {
		return fmt.Sprintf("identical (%d lines)", r.A.OutputLines)
	}
	return r.Diff
}

// maxDiffInput bounds each output fed to the diff.
const maxDiffInput = 4 << 20

func (t *tools) diffCommands(ctx context.Context, req *mcp.CallToolRequest, in DiffInput) (DiffResult, error) {
	sh, err := t.shells.Get(in.SessionID)
	if err != nil {
		return DiffResult{}, err
	}
	if in.CommandA == "" || in.CommandB == "" {
		return DiffResult{}, fmt.Errorf("%w: give both command_a and command_b", session.ErrBadArgs)
	}
	ctxLines := 3
	if in.ContextLines != nil {
		if *in.ContextLines < 0 || *in.ContextLines > 1000 {
			return DiffResult{}, fmt.Errorf("%w: context_lines must be between 0 and 1000", session.ErrBadArgs)
		}
		ctxLines = *in.ContextLines
	}
	limit := 400
	if in.MaxLines != nil {
		if *in.MaxLines < 0 {
			return DiffResult{}, fmt.Errorf("%w: max_lines must be >= 0", session.ErrBadArgs)
		}
		limit = *in.MaxLines
	}
	o, err := ExecLimits{TimeoutMs: in.TimeoutMs, MaxLines: ptr(0), MaxBytes: maxDiffInput}.options()
	if err != nil {
		return DiffResult{}, err
	}
	var res [2]shell.Result
	for i, c := range []string{in.CommandA, in.CommandB} {
		r, err := t.execIn(ctx, req, "diff_commands", sh, c, o)
		if err != nil {
			return DiffResult{}, err
		}
		if r.ExitCode == nil {
			er := execResult(sh.Session(), r)
			return DiffResult{}, fmt.Errorf("command %c (%s) did not finish: state %s; %s", 'A'+i, excerpt.Q(c), er.State, er.Hint)
		}
		res[i] = r
	}
	out := DiffResult{A: execResult(sh.Session(), res[0]), B: execResult(sh.Session(), res[1])}
	out.A.Output, out.B.Output = "", ""
	d, err := shell.DiffOutputs(res[0].Output, res[1].Output, "a: "+in.CommandA, "b: "+in.CommandB, ctxLines, limit)
	if err != nil {
		return DiffResult{}, err
	}
	out.Identical, out.Diff, out.DiffLines, out.Truncated = d.Identical, d.Text, d.Lines, d.Truncated
	return out, nil
}
