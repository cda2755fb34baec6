package mcpserver

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pmezard/go-difflib/difflib"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/re2"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/shell"
)

// Retry limits: every attempt and pause happen inside one tool call.
const (
	maxRetries   = 20
	maxRetryWait = 60 * time.Second
)

// RetryInput are retry_command's arguments.
type RetryInput struct {
	SessionID       string `json:"session_id" jsonschema:"shell session id or name"`
	Command         string `json:"command"`
	MaxRetries      *int   `json:"max_retries,omitempty" jsonschema:"retries after the first attempt (default 3, cap 20)"`
	Backoff         string `json:"backoff,omitempty" jsonschema:"fixed, linear or exponential (default)"`
	DelayMs         *int   `json:"delay_ms,omitempty" jsonschema:"base pause between attempts (default 1000, cap 60000)"`
	SuccessExitCode *int   `json:"success_exit_code,omitempty" jsonschema:"exit code that counts as success (default 0)"`
	SuccessPattern  string `json:"success_pattern,omitempty" jsonschema:"RE2 regex the output must also match"`
	ExecLimits
}

// Attempt is one try of retry_command.
type Attempt struct {
	Attempt     int     `json:"attempt"`
	DelayMs     float64 `json:"delay_ms" jsonschema:"pause before this attempt"`
	ExitCode    *int    `json:"exit_code,omitempty"`
	State       string  `json:"state"`
	Matched     *bool   `json:"matched,omitempty" jsonschema:"success_pattern matched the output"`
	Success     bool    `json:"success"`
	DurationMs  float64 `json:"duration_ms"`
	OutputLines int     `json:"output_lines"`
}

// RetryResult is retry_command's result.
type RetryResult struct {
	Success  bool       `json:"success"`
	Attempts int        `json:"attempts"`
	Last     ExecResult `json:"last" jsonschema:"the last attempt in full"`
	History  []Attempt  `json:"history"`
	Hint     string     `json:"hint,omitempty"`
}

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

// backoffDelay is the pause before attempt n (n >= 2).
func backoffDelay(kind string, base time.Duration, n int) time.Duration {
	switch kind {
	case "fixed":
		return base
	case "linear":
		return base * time.Duration(n-1)
	}
	return min(base<<(n-2), maxRetryWait)
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
	if retries < 0 || retries > maxRetries {
		return RetryResult{}, fmt.Errorf("%w: max_retries must be between 0 and %d", session.ErrBadArgs, maxRetries)
	}
	switch in.Backoff {
	case "":
		in.Backoff = "exponential"
	case "fixed", "linear", "exponential":
	default:
		return RetryResult{}, fmt.Errorf("%w: backoff must be fixed, linear or exponential, not %s", session.ErrBadArgs, excerpt.Q(in.Backoff))
	}
	base := time.Second
	if in.DelayMs != nil {
		if *in.DelayMs < 0 || *in.DelayMs > int(maxRetryWait.Milliseconds()) {
			return RetryResult{}, fmt.Errorf("%w: delay_ms must be between 0 and %d", session.ErrBadArgs, maxRetryWait.Milliseconds())
		}
		base = time.Duration(*in.DelayMs) * time.Millisecond
	}
	var re *regexp.Regexp
	if in.SuccessPattern != "" {
		if re, err = re2.Compile("(?m)" + in.SuccessPattern); err != nil {
			return RetryResult{}, fmt.Errorf("%w: success_pattern is not a valid RE2 regex: %v", session.ErrBadArgs, err)
		}
	}
	want := 0
	if in.SuccessExitCode != nil {
		want = *in.SuccessExitCode
	}
	var res RetryResult
	for n := 1; n <= retries+1; n++ {
		a := Attempt{Attempt: n}
		if n > 1 {
			d := backoffDelay(in.Backoff, base, n)
			a.DelayMs = float64(d.Milliseconds())
			if err := pause(ctx, d); err != nil {
				return res, err
			}
		}
		r, err := t.execIn(ctx, req, "retry_command", sh, in.Command, o)
		if err != nil {
			return res, err
		}
		er := execResult(sh.Session(), r)
		a.ExitCode, a.State, a.DurationMs, a.OutputLines = er.ExitCode, er.State, er.DurationMs, er.OutputLines
		a.Success = r.ExitCode != nil && *r.ExitCode == want
		if re != nil {
			m := re.MatchString(r.Output)
			a.Matched = &m
			a.Success = a.Success && m
		}
		res.History = append(res.History, a)
		res.Attempts, res.Last, res.Success = n, er, a.Success
		if a.Success || r.ExitCode == nil {
			// Done, or the command is still running / the shell died: a
			// retry cannot start.
			break
		}
	}
	if !res.Success && res.Last.ExitCode == nil {
		res.Hint = "the last attempt did not finish (" + res.Last.State + "); " + res.Last.Hint
	}
	return res, nil
}

func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// DiffInput are diff_commands's arguments.
type DiffInput struct {
	SessionID    string `json:"session_id" jsonschema:"shell session id or name"`
	CommandA     string `json:"command_a" jsonschema:"baseline command"`
	CommandB     string `json:"command_b" jsonschema:"command to compare"`
	ContextLines *int   `json:"context_lines,omitempty" jsonschema:"diff context lines (default 3)"`
	TimeoutMs    *int   `json:"timeout_ms,omitempty" jsonschema:"per command (default 30000, cap 60000)"`
	MaxLines     *int   `json:"max_lines,omitempty" jsonschema:"most diff lines returned (default 400; 0 = unlimited)"`
}

// DiffResult is diff_commands's result.
type DiffResult struct {
	Identical bool       `json:"identical"`
	Diff      string     `json:"diff" jsonschema:"unified diff, A = command_a, B = command_b"`
	DiffLines int        `json:"diff_lines"`
	Truncated bool       `json:"truncated"`
	A         ExecResult `json:"result_a" jsonschema:"command_a's result (output omitted)"`
	B         ExecResult `json:"result_b" jsonschema:"command_b's result (output omitted)"`
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
	out.Identical = res[0].Output == res[1].Output
	if !out.Identical {
		d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(res[0].Output), B: difflib.SplitLines(res[1].Output),
			FromFile: "a: " + in.CommandA, ToFile: "b: " + in.CommandB, Context: ctxLines,
		})
		if err != nil {
			return DiffResult{}, fmt.Errorf("diff: %w", err)
		}
		lines := strings.SplitAfter(d, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		out.DiffLines = len(lines)
		if limit > 0 && len(lines) > limit {
			out.Truncated = true
			d = strings.Join(lines[:limit], "") + fmt.Sprintf("[... %d more diff lines ...]\n", len(lines)-limit)
		}
		out.Diff = d
	}
	return out, nil
}
