package mcpserver

// run_command with interactive: true runs a program to its end inside one
// tool call, asking the person (not the model) whenever the kernel says the
// program waits for input: each round shows the person the output since
// their last answer in an elicitation form and types their answer. A
// password prompt is never a form: the secret goes through a one-time
// page (secret_input.go). Only run_command takes interactive, as it is the
// one-call tool; start_process and exec_command are the agent-driven flows,
// where send_input secret=ask_user brings the person in for secrets.
//
// Older clients are asked with elicitation/create inside the call, all
// rounds in one handler run. Multi-round-trip clients retry the call once
// per round; the sealed request state carries the session and round, so a
// retry resumes the same run (and nothing else).

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/gate"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/secret"
	"github.com/agentty/agentty/internal/session"
)

// DefaultMaxRounds caps the questions of one interactive run.
const DefaultMaxRounds = 50

// roundShown bounds the output one question shows the person.
const roundShown = 4000

// Kinds of a run's question.
const (
	kindForm    = "form"
	kindSecret  = "secret"  // a password prompt on the terminal
	kindAskpass = "askpass" // sudo -A through agentty askpass
)

// runState is where an interactive run stands between questions.
type runState struct {
	session string
	round   int    // questions asked so far, this one included
	kind    string // kindForm or kindSecret: the question being asked
	page    string // kindSecret: the page's id
	from    int64  // output cursor where this round's output begins
	started time.Time
}

// bind identifies the command a state belongs to.
func (in RunInput) bind() string { return strings.Join(in.Argv, "\x00") + "\x00\x00" + in.Cwd }

func (t *tools) sealRun(in RunInput, st runState) string {
	return t.sealState(time.Now(), "run", in.bind(), st.session, strconv.Itoa(st.round), st.kind, st.page,
		strconv.FormatInt(st.from, 10), strconv.FormatInt(st.started.UnixMilli(), 10))
}

// resumeRun returns the state a retried call carries, if this server
// sealed it for this command.
func (t *tools) resumeRun(req *mcp.CallToolRequest, in RunInput) (runState, bool) {
	if req == nil || req.Params == nil {
		return runState{}, false
	}
	p, ok := t.openState(req.Params.RequestState)
	if !ok || len(p) != 8 || p[0] != "run" || p[1] != in.bind() {
		return runState{}, false
	}
	round, err1 := strconv.Atoi(p[3])
	from, err2 := strconv.ParseInt(p[6], 10, 64)
	ms, err3 := strconv.ParseInt(p[7], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return runState{}, false
	}
	return runState{session: p[2], round: round, kind: p[4], page: p[5], from: from, started: time.UnixMilli(ms)}, true
}

// errNoElicitation words the missing capability for the agent.
var errNoElicitation = fmt.Errorf("%w: interactive: true needs an MCP client that supports elicitation, and this one does not; "+
	"run the program with start_process and answer its prompts with send_input (secret=ask_user for passwords), "+
	"or ask the user to run it themselves (agentty attach)", session.ErrBadArgs)

func (t *tools) runInteractive(ctx context.Context, req *mcp.CallToolRequest, in RunInput) (RunResult, error) {
	if !canElicit(req) {
		return RunResult{}, errNoElicitation
	}
	maxRounds := t.maxRounds
	switch {
	case in.MaxRounds < 0:
		return RunResult{}, fmt.Errorf("%w: max_rounds must be >= 1", session.ErrBadArgs)
	case in.MaxRounds > 0:
		maxRounds = in.MaxRounds
	}
	segment := 30 * time.Second // how long the program may run between answers
	if in.TimeoutMs != nil {
		if *in.TimeoutMs <= 0 || *in.TimeoutMs > 600000 {
			return RunResult{}, fmt.Errorf("%w: timeout_ms must be between 1 and 600000", session.ErrBadArgs)
		}
		segment = time.Duration(*in.TimeoutMs) * time.Millisecond
	}
	// until and settle_ms end a round where the kernel's verdict cannot:
	// a program whose group holds a process blocked on something else.
	wo, err := WaitParams{Until: in.Until, SettleMs: in.SettleMs}.options(waitDefaults{})
	if err != nil {
		return RunResult{}, err
	}
	wo.Timeout = segment
	st, resumed := t.resumeRun(req, in)
	var s *session.Session
	if resumed {
		var err error
		if s, err = t.mgr.Get(st.session); err != nil {
			return RunResult{}, err
		}
		if !t.disarm(s.ID) {
			return t.runDone(ctx, s, in, st, st.round-1, "the person's answer came after the question expired; the program was killed")
		}
	} else {
		var err error
		if s, err = t.startInteractive(ctx, req, in); err != nil {
			return RunResult{}, err
		}
		st = runState{session: s.ID, started: time.Now()}
	}
	t.setRun(s.ID, true)
	defer t.onSession(s.ID, req.Session)()
	res, err := t.interactiveLoop(ctx, req, s, in, st, resumed, maxRounds, wo)
	if _, retry := errors.AsType[*needInput](err); !retry {
		t.setRun(s.ID, false)
	}
	return res, err
}

func (t *tools) interactiveLoop(ctx context.Context, req *mcp.CallToolRequest, s *session.Session, in RunInput, st runState, resumed bool, maxRounds int, wo session.WaitOptions) (RunResult, error) {
	var mark *session.InputMark
	for {
		if !resumed {
			note, asked, err := t.untilPrompt(ctx, req, s, mark, wo)
			if err != nil {
				t.kill(ctx, s)
				return RunResult{}, err
			}
			if asked == nil && (note != "" || s.Status() != nil) {
				return t.runDone(ctx, s, in, st, st.round, note)
			}
			st.round++
			if st.round > maxRounds {
				t.kill(ctx, s)
				return t.runDone(ctx, s, in, st, maxRounds, fmt.Sprintf("the round cap (%d questions; max_rounds) was reached; the program was killed", maxRounds))
			}
			st.kind, st.page = kindForm, ""
			if asked != nil {
				st.kind, st.page = kindAskpass, asked.ID
			} else if state, _ := s.State(); state == record.StateAwaitingPassword {
				pg, err := t.openPage(s)
				if err != nil {
					t.kill(ctx, s)
					return RunResult{}, err
				}
				st.kind, st.page = kindSecret, pg.ID
			}
		}
		sent, note, err := t.answerRound(ctx, req, s, in, st, maxRounds, resumed)
		resumed = false
		if err != nil {
			var ni *needInput
			if errors.As(err, &ni) {
				t.arm(s)
			} else {
				t.kill(ctx, s)
			}
			return RunResult{}, err
		}
		if !sent {
			t.kill(ctx, s)
			return t.runDone(ctx, s, in, st, st.round-1, note)
		}
		m := s.LastInput()
		mark, st.from = &m, m.At
	}
}

// startInteractive admits and starts the program of an interactive run.
func (t *tools) startInteractive(ctx context.Context, req *mcp.CallToolRequest, in RunInput) (*session.Session, error) {
	if in.Host != "" {
		return nil, fmt.Errorf("%w: interactive: true runs programs on this machine; for a remote one use open_shell with host and exec_command", session.ErrBadArgs)
	}
	if err := t.admit(ctx, req, gate.Command{Tool: "run_command", Argv: in.Argv, Env: in.Env, Cwd: in.Cwd}); err != nil {
		return nil, err
	}
	s, err := t.mgr.Start(session.StartOptions{Argv: in.Argv, Cwd: in.Cwd, Env: in.Env, Mode: record.Mode(in.Mode), Base: clientEnv(ctx, "")})
	if err != nil {
		if l := gate.LimitOf(err); l != "" {
			return nil, t.limitRefused(req, "run_command", "", strings.Join(in.Argv, " "), l, agentError(err))
		}
		return nil, err
	}
	t.recordStart(req, s)
	return s, nil
}

// untilPrompt waits until the program waits for input, exits, asks
// through agentty askpass (asked), or its output matches wo.Until or
// settles for wo.Settle; it returns a note when the program ran past
// wo.Timeout without any of these.
func (t *tools) untilPrompt(ctx context.Context, req *mcp.CallToolRequest, s *session.Session, mark *session.InputMark, wo session.WaitOptions) (note string, asked *secret.Page, err error) {
	stop := ReportProgress(ctx, req, s)
	defer stop()
	segment := wo.Timeout
	deadline := time.Now().Add(segment)
	// Output since the last answer (or the start) counts for until, also
	// when a wait is restarted after an askpass check.
	var from int64
	if mark != nil {
		from = mark.At
	}
	for {
		pg, changed := t.pendingAsk(s.ID)
		if pg != nil {
			return "", pg, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			t.kill(ctx, s)
			return fmt.Sprintf("the program ran %s without asking for input or exiting (timeout_ms; until or settle_ms can end a round); it was killed", segment), nil, nil
		}
		// An askpass question ends the wait; the goroutine ends with it.
		wctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-changed:
				cancel()
			case <-wctx.Done():
			}
		}()
		o := wo
		o.Timeout, o.Input = left, mark
		r := s.Wait(wctx, from, o)
		cancel()
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
		switch r.Reason {
		case session.ReasonAwaiting, session.ReasonExited, session.ReasonMatched, session.ReasonSettled:
			return "", nil, nil
		}
	}
}

// answerRound asks the person st's question and types the answer. sent is
// false when the person gave none; note then says why.
func (t *tools) answerRound(ctx context.Context, req *mcp.CallToolRequest, s *session.Session, in RunInput, st runState, maxRounds int, retried bool) (sent bool, note string, err error) {
	if st.kind == kindSecret || st.kind == kindAskpass {
		pg := t.pageOf(st.page)
		if pg == nil {
			return false, "the secret page expired before the person answered; the program was killed", nil
		}
		res, err := t.askSecret(ctx, req, s, pg, t.sealRun(in, st), retried, st.kind == kindSecret)
		if err != nil {
			return false, "", err
		}
		if res != secretAnswered {
			return false, fmt.Sprintf("the person %s when asked for the secret (question %d); the program was killed", res, st.round), nil
		}
		return true, "", nil
	}
	er, err := ask(ctx, req, question{key: "agentty_round_" + strconv.Itoa(st.round), state: t.sealRun(in, st), retried: retried, params: &mcp.ElicitParams{
		Message: t.roundMessage(ctx, s, st, maxRounds),
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
			"answer": map[string]any{"type": "string", "title": "Answer", "description": "typed into the program, then Enter"}}},
	}})
	if err != nil {
		return false, "", err
	}
	answer, _ := er.Content["answer"].(string)
	if er.Action != "accept" || answer == "" {
		why := "gave an empty answer"
		if er.Action != "accept" {
			why = "answered " + strconv.Quote(er.Action)
		}
		return false, fmt.Sprintf("the person %s at question %d; the program was killed", why, st.round), nil
	}
	in2 := SendInput{Text: answer, Enter: true}
	if _, err := s.Send(session.Input{Text: answer, Enter: true, From: record.FromPerson}, time.Now().Add(10*time.Second)); err != nil {
		return false, "", err
	}
	t.recordInput(req, s, in2, record.StateAwaitingInput)
	return true, "", nil
}

// roundMessage is what a question shows the person: the screen of a
// full-screen program, else the output since their last answer.
func (t *tools) roundMessage(ctx context.Context, s *session.Session, st runState, maxRounds int) string {
	var out string
	if s.TUI() {
		if sr, err := s.Screen(ctx, session.ScreenOptions{}); err == nil {
			out = strings.Join(sr.Snapshot.Lines, "\n")
		}
	} else {
		out = s.Text(st.from, s.OutputEnd())
	}
	if len(out) > roundShown {
		out = "…" + strings.ToValidUTF8(out[len(out)-roundShown:], "")
	}
	return fmt.Sprintf("%s (session %s) waits for input, question %d of at most %d:\n\n%s\n\nType the answer (Enter is added). Decline or leave it empty to stop the program.",
		s.Command, s.ID, st.round, maxRounds, strings.TrimRight(out, "\n"))
}

// kill ends s's whole tree at once.
func (t *tools) kill(ctx context.Context, s *session.Session) {
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := s.Terminate(kctx, 0); err != nil {
		t.log.Warn("interactive run: kill", "session", s.ID, "err", err)
	}
}

// runDone is the result of a run that ended: the whole output (head and
// tail when long), how it ended, the rounds and any note. What the program
// left running (a setsid'd or double-forked child) is ended first, as a
// plain run_command ends it: a run is over when its result is sent.
func (t *tools) runDone(ctx context.Context, s *session.Session, in RunInput, st runState, answered int, note string) (RunResult, error) {
	t.kill(ctx, s)
	maxOut := in.MaxOutputBytes
	if maxOut == 0 {
		maxOut = 100 << 10
	}
	if maxOut < 64 || maxOut > session.MaxBytesCap {
		return RunResult{}, fmt.Errorf("%w: max_output_bytes must be between 64 and %d", session.ErrBadArgs, session.MaxBytesCap)
	}
	zero := int64(0)
	r, err := s.Read(ctx, session.Cursor{At: &zero}, session.WaitOptions{}, session.ReadOptions{MaxBytes: maxOut, MaxEncoded: maxEncodedOutput})
	if err != nil {
		return RunResult{}, err
	}
	rr := readResult(s, r)
	res := RunResult{Argv: in.Argv, Cwd: s.Cwd, SessionID: s.ID, Rounds: &answered, Note: note,
		DurationMs: float64(time.Since(st.started).Microseconds()) / 1000, Checks: []Check{},
		Stdout: Stream{Text: rr.Output, Bytes: s.OutputEnd(), Lines: r.Output.Line, Truncated: r.Output.Truncated}}
	if r.Output.Omitted != nil {
		res.Stdout.OmittedBytes = r.Output.Omitted.Bytes
	}
	if rr.Output != "" && !strings.HasSuffix(rr.Output, "\n") {
		res.Stdout.Lines++
	}
	want := 0
	if in.SuccessExitCode != nil {
		want = *in.SuccessExitCode
	}
	if es := s.Status(); es != nil {
		if es.Signal != "" {
			res.Signal = es.Signal
		} else {
			code := es.Code
			res.ExitCode = &code
			res.OK = note == "" && (in.AnyExitCode || code == want)
		}
	}
	res.Checks = append(res.Checks, Check{Name: "exit_code", OK: res.OK, Detail: fmt.Sprintf("want %d", want)})
	return res, nil
}
