package mcpserver

// The gate between tool calls and the session engine: the command policy
// (internal/policy), human confirmation through MCP elicitation, per-call
// limits and the audit log (internal/audit). Every refusal is a tool error
// that names the rule, so the agent can adapt.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// RemoteAddrHeader carries the client's network address into tool calls
// over HTTP. The HTTP layer sets it from the connection (overwriting any
// value the client sent); the audit log records it.
const RemoteAddrHeader = "X-Agentty-Remote-Addr"

// confirmTimeout is how long a confirmation question stays answerable.
const confirmTimeout = 5 * time.Minute

// clientOf identifies who made a request, for the audit log.
func clientOf(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return "stdio"
	}
	id := req.Session.ID()
	if req.Extra != nil && req.Extra.Header != nil {
		c := "http"
		if a := req.Extra.Header.Get(RemoteAddrHeader); a != "" {
			c += " " + a
		}
		if id != "" {
			c += " mcp-session=" + id
		}
		return c
	}
	if id != "" {
		return "stdio mcp-session=" + id
	}
	return "stdio"
}

func (t *tools) record(e audit.Event) {
	if err := t.audit.Write(e); err != nil {
		t.log.Error("audit log write failed", "event", e.Event, "err", err)
	}
}

// refused records a refusal and returns the tool error.
func (t *tools) refused(req *mcp.CallToolRequest, tool, sessionID, command, cwd string, d policy.Decision) error {
	t.record(audit.Event{Event: audit.EventRefusal, Tool: tool, Session: sessionID, Client: clientOf(req),
		Command: command, Cwd: cwd, Rule: d.Rule, Reason: d.Reason})
	return d.Err()
}

// limitRefused records a refusal by a limit (too many sessions, input too
// large, ...) and passes the error on.
func (t *tools) limitRefused(req *mcp.CallToolRequest, tool, sessionID, command, limit string, err error) error {
	t.record(audit.Event{Event: audit.EventRefusal, Tool: tool, Session: sessionID, Client: clientOf(req),
		Command: command, Rule: limit, Reason: err.Error()})
	return err
}

// inputLimit refuses a command line longer than the input one call may
// carry, before the policy checker would refuse it for its own length.
func (t *tools) inputLimit(req *mcp.CallToolRequest, tool, sessionID, command string) error {
	limit := t.mgr.MaxInputBytes()
	if len(command) <= limit {
		return nil
	}
	err := fmt.Errorf("%w: the command is %d bytes; this server takes at most %d bytes of input per call (flag -max-input-bytes): write a long script to a file with write_file and run the file, or raise -max-input-bytes",
		session.ErrInputTooLarge, len(command), limit)
	return t.limitRefused(req, tool, sessionID, fmt.Sprintf("(a command of %d bytes)", len(command)), "max-input-bytes", err)
}

// admitStart applies the policy to start_process.
func (t *tools) admitStart(ctx context.Context, req *mcp.CallToolRequest, in StartInput) error {
	if err := t.inputLimit(req, "start_process", "", in.Command); err != nil {
		return err
	}
	command := in.Command
	var d policy.Decision
	if in.Command != "" {
		d = t.policy.CheckScript(in.Command, in.Cwd)
	} else {
		command = strings.Join(in.Argv, " ")
		d = t.policy.CheckArgv(in.Argv, in.Cwd)
	}
	if d.Verdict != policy.Refuse {
		if e := t.policy.CheckEnv(in.Env); e.Verdict == policy.Refuse {
			d = e
		}
	}
	return t.decide(ctx, req, "start_process", "", command, in.Cwd, d)
}

// decide turns a decision into nil (run it) or a tool error, asking the
// human first when the decision is Confirm.
func (t *tools) decide(ctx context.Context, req *mcp.CallToolRequest, tool, sessionID, command, cwd string, d policy.Decision) error {
	switch d.Verdict {
	case policy.Refuse:
		return t.refused(req, tool, sessionID, command, cwd, d)
	case policy.Confirm:
		return t.confirm(ctx, req, tool, sessionID, command, cwd, d)
	}
	return nil
}

// confirmID labels the confirmation in a multi-round-trip input request.
const confirmID = "agentty_confirm"

// needInput carries a multi-round-trip result (input requests for the
// client) out of a typed handler; add returns it as the call's result.
type needInput struct{ res *mcp.CallToolResult }

func (n *needInput) Error() string { return "input required from the client" }

// confirm asks the human (accept / decline) through MCP elicitation, as a
// multi-round-trip input request: the first call returns the question, the
// client answers and retries the same call with the response. Clients on
// protocol versions before multi-round-trip are asked by the SDK with a
// server-initiated elicitation/create, and the handler is re-run the same
// way. The request state is an HMAC over the command, so a retry only
// counts as an answer to the question this server asked about this command.
func (t *tools) confirm(_ context.Context, req *mcp.CallToolRequest, tool, sessionID, command, cwd string, d policy.Decision) error {
	why := d.Reason + " (rule " + d.Rule + ")"
	if !canElicit(req) {
		return t.refused(req, tool, sessionID, command, cwd, policy.Decision{Verdict: policy.Refuse, Rule: d.Rule, Subject: d.Subject,
			Reason: "this command needs a human's confirmation because " + why + ", and this MCP client cannot ask one (it does not support elicitation); ask the user to run it themselves or to change agentty's policy"})
	}
	resp, answered := req.Params.InputResponses[confirmID]
	if !answered {
		where := cwd
		if where == "" {
			where = "agentty's working directory"
		}
		return &needInput{res: &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{confirmID: &mcp.ElicitParams{
				Message:         fmt.Sprintf("An agent wants to run:\n\n%s\n\nin %s (%s).\nAllow it?", command, where, why),
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
			}},
			RequestState: t.confirmState(time.Now(), tool, sessionID, command, cwd),
		}}
	}
	action := "invalid"
	if er, ok := resp.(*mcp.ElicitResult); ok && er != nil {
		action = er.Action
	}
	if !t.validConfirmState(req.Params.RequestState, tool, sessionID, command, cwd) {
		action = "unsolicited"
	}
	t.record(audit.Event{Event: audit.EventConfirm, Tool: tool, Session: sessionID, Client: clientOf(req), Command: command, Cwd: cwd,
		Rule: d.Rule, Reason: action})
	switch action {
	case "accept":
		return nil
	case "unsolicited":
		return t.refused(req, tool, sessionID, command, cwd, policy.Decision{Verdict: policy.Refuse, Rule: d.Rule,
			Reason: "a confirmation answer came without a matching question from this server (or it expired), so it did not run; call the tool again to be asked"})
	}
	return t.refused(req, tool, sessionID, command, cwd, policy.Decision{Verdict: policy.Refuse, Rule: d.Rule,
		Reason: fmt.Sprintf("the human answered %s when asked to confirm (%s); do not retry it, ask the user what to do instead", excerpt.Q(action), why)})
}

func (t *tools) confirmMAC(ts, tool, sessionID, command, cwd string) string {
	m := hmac.New(sha256.New, t.stateKey[:])
	for _, s := range []string{ts, tool, sessionID, command, cwd} {
		m.Write([]byte(s))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil))
}

func (t *tools) confirmState(now time.Time, tool, sessionID, command, cwd string) string {
	ts := strconv.FormatInt(now.Unix(), 10)
	return ts + "." + t.confirmMAC(ts, tool, sessionID, command, cwd)
}

func (t *tools) validConfirmState(state, tool, sessionID, command, cwd string) bool {
	ts, mac, ok := strings.Cut(state, ".")
	if !ok {
		return false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)) > confirmTimeout {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(t.confirmMAC(ts, tool, sessionID, command, cwd)))
}

// canElicit reports whether the client advertised elicitation at
// initialization.
func canElicit(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil
}

// completesLine reports whether the input ends with Enter, so a shell
// would run what was typed.
func completesLine(in SendInput) bool {
	if in.Enter || strings.ContainsAny(in.Text, "\r\n") {
		return true
	}
	for _, k := range in.Keys {
		if k == "enter" || k == "ctrl+m" || k == "ctrl+j" {
			return true
		}
	}
	return false
}

// promptKeys may be pressed at a shell prompt under a policy: they cannot
// recall, complete or edit a command line into something unchecked.
var promptKeys = map[string]bool{"enter": true, "ctrl+c": true, "ctrl+d": true, "ctrl+l": true}

// admitInput applies the policy to send_input. Text that reaches a shell
// reading command lines (the foreground program is an interactive shell, or
// one runs anywhere in the session and the foreground program is not itself
// reading) is a command line and gets the same check as start_process's
// command. In pipe mode the "foreground" is the root, so a shell below it
// makes every line checked unless the root itself is reading.
func (t *tools) admitInput(ctx context.Context, req *mcp.CallToolRequest, s *session.Session, in SendInput) error {
	if t.policy == nil || len(in.Text) > t.mgr.MaxInputBytes() {
		return nil // Send refuses input over the limit, naming the limit
	}
	var fg session.Foreground
	atShell, treeShell := false, false
	state, _ := s.State()
	if s.Host() != "" {
		// The remote process tree is not visible here (a pid there is not a
		// pid here), so under a policy every line typed into a remote
		// session is checked as a shell command line, except at a password
		// prompt. Protected directories are local paths: nothing to check
		// with the policy off.
		if !t.policy.Enabled() || state == record.StateAwaitingPassword {
			return nil
		}
		fg.Comm, atShell, treeShell = "the remote program", true, true
	} else {
		var err error
		if fg, err = s.Foreground(); err != nil {
			if s.Status() != nil || !t.policy.Enabled() {
				return nil // exited (Send reports it), or nothing to enforce
			}
			return t.refused(req, "send_input", s.ID, "", "", policy.Decision{Verdict: policy.Refuse, Rule: policy.RuleUndecidable,
				Reason: fmt.Sprintf("cannot tell whether a shell would read this input (%v), so it is refused while a command policy is on", err)})
		}
		// A shell in the foreground group reads what is typed; a shell
		// anywhere in the session gets typed-ahead lines once the
		// foreground program is done. In pipe mode every process shares
		// the one stdin.
		for _, p := range fg.Procs {
			if policy.IsInteractiveShell(p.Args) {
				treeShell = true
				atShell = atShell || p.PGID == fg.PGID || s.Mode == record.ModePipe
			}
		}
	}
	reading := state == record.StateAwaitingInput || state == record.StateAwaitingPassword
	secret := state == record.StateAwaitingPassword
	on := t.policy.Enabled()
	if on && atShell && secret && in.Text != "" {
		// read -s and stty -echo look the same: the text may be a secret or a
		// command line, and checking it would copy a secret into the refusal.
		return t.refused(req, "send_input", s.ID, "", fg.Cwd, policy.Decision{Verdict: policy.Refuse, Rule: policy.RuleUndecidable,
			Reason: "the shell itself reads with echo off (read -s or stty -echo), so agentty cannot tell a secret from a command line; text is refused here while a command policy is on (ctrl+c still works); run the program that asks for a secret as its own session"})
	}
	// Without a policy, a shell asking for a secret is left alone.
	checked := (atShell && !(secret && !on)) || (treeShell && !reading)
	if !checked {
		if on && treeShell && strings.Count(in.Text, "\n")+strings.Count(in.Text, "\r") > 1 {
			return t.refused(req, "send_input", s.ID, in.Text, fg.Cwd, policy.Decision{Verdict: policy.Refuse, Rule: policy.RuleUndecidable,
				Reason: fg.Comm + " reads this input, but lines it does not read would reach the shell unchecked; send one line per call"})
		}
		return nil
	}
	if on {
		for _, k := range in.Keys {
			if !promptKeys[k] {
				return t.refused(req, "send_input", s.ID, in.Text, fg.Cwd, policy.Decision{Verdict: policy.Refuse, Rule: policy.RuleUndecidable,
					Reason: fmt.Sprintf("key %s at a shell prompt can recall, complete or edit the command line past the checker; type the whole command as text with enter=true", excerpt.Q(k))})
			}
		}
		if strings.ContainsFunc(in.Text, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' || r == 0x7f }) {
			return t.refused(req, "send_input", s.ID, in.Text, fg.Cwd, policy.Decision{Verdict: policy.Refuse, Rule: policy.RuleUndecidable,
				Reason: "control characters at a shell prompt can recall or edit history past the checker; send plain text"})
		}
		if last := strings.LastIndexAny(in.Text, "\r\n"); in.Text != "" && !in.Enter && !completesLine(SendInput{Keys: in.Keys}) && last != len(in.Text)-1 {
			return t.refused(req, "send_input", s.ID, in.Text, fg.Cwd, policy.Decision{Verdict: policy.Refuse, Rule: policy.RuleUndecidable,
				Reason: "a partial command line at a shell prompt cannot be checked (later input would complete it unseen); send the whole command with enter=true"})
		}
	}
	if !completesLine(in) {
		return nil
	}
	script := strings.TrimRight(strings.ReplaceAll(in.Text, "\r", "\n"), "\n")
	return t.decide(ctx, req, "send_input", s.ID, script, fg.Cwd, t.policy.CheckScript(script, fg.Cwd))
}

// recordInput writes the input event; text typed while the terminal's echo
// is off (a password prompt) is redacted.
func (t *tools) recordInput(req *mcp.CallToolRequest, s *session.Session, in SendInput, state record.State) {
	if t.audit == nil {
		return
	}
	echoOff := state == record.StateAwaitingPassword
	input, red := audit.InputText(in.Text, echoOff)
	if len(in.Keys) > 0 {
		input += " [keys " + strings.Join(in.Keys, " ") + "]"
	}
	if in.Enter {
		input += " [enter]"
	}
	if in.StdinEOF {
		input += " [eof]"
	}
	input = strings.TrimPrefix(input, " ")
	t.record(audit.Event{Event: audit.EventInput, Session: s.ID, Client: clientOf(req), Input: input, Redacted: red, PID: s.PID()})
}

// recordStart writes the start event.
func (t *tools) recordStart(req *mcp.CallToolRequest, s *session.Session) {
	t.record(audit.Event{Event: audit.EventStart, Session: s.ID, Client: clientOf(req), Command: s.Command, Cwd: s.Cwd, PID: s.PID(),
		Detail: map[string]string{"mode": string(s.Mode), "argv": strings.Join(s.Argv, " ")}})
}

// RecordExit is a session.Config.OnExit hook that writes exit events.
func RecordExit(a *audit.Log, next func(*session.Session)) func(*session.Session) {
	return func(s *session.Session) {
		if a != nil {
			e := audit.Event{Event: audit.EventExit, Session: s.ID, Command: s.Command, Cwd: s.Cwd, PID: s.PID()}
			if st := s.Status(); st != nil {
				code := st.Code
				e.Exit, e.Signal = &code, st.Signal
			}
			if by := s.EndedBy(); by != "" {
				e.Reason = by
			}
			_ = a.Write(e)
		}
		if next != nil {
			next(s)
		}
	}
}

// readLimit applies the server's max-read-bytes to a call's max_bytes.
func (t *tools) readLimit(ro *session.ReadOptions, asked int) error {
	if t.maxRead <= 0 {
		return nil
	}
	if asked > t.maxRead {
		return fmt.Errorf("%w: max_bytes %d is over this server's limit of %d bytes per call (max-read-bytes); ask for less and read again from the returned cursor", session.ErrBadArgs, asked, t.maxRead)
	}
	if ro.MaxBytes <= 0 {
		ro.MaxBytes = min(session.DefaultMaxBytes, t.maxRead)
	}
	return nil
}

// limitOf names the limit behind an engine error, for the audit log.
func limitOf(err error) string {
	switch {
	case errors.Is(err, session.ErrTooManySessions):
		return "max-sessions"
	case errors.Is(err, session.ErrInputTooLarge):
		return "max-input-bytes"
	}
	return ""
}
