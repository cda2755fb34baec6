package gate

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/policy"
)

// Confirmer asks a human whether a command may run. It is the front end's
// part of a confirmation: MCP asks through elicitation, over as many
// round trips as the protocol needs.
type Confirmer interface {
	// Confirm returns the human's answer, a *CannotAskError when no human
	// can be asked, or another error that ends the call as it is (the
	// front end's "ask, then call again", or a failure).
	Confirm(ctx context.Context, q Question) (Answer, error)
}

// Question is what a human is asked to confirm. Tool, Session, Command
// and Cwd identify the call, so an answer can be matched to its question.
type Question struct {
	Tool    string
	Session string // session id, "" before there is one
	Command string // what would run, as the audit log names it
	Cwd     string // where it would run; "" is agentty's working directory
	Rule    string // the rule that asks for confirmation
	Reason  string // why the rule applies
}

// Why is the question's reason and rule, as refusals quote them.
func (q Question) Why() string { return q.Reason + " (rule " + q.Rule + ")" }

// Text is the question in words for the human.
func (q Question) Text() string {
	where := q.Cwd
	if where == "" {
		where = "agentty's working directory"
	}
	return fmt.Sprintf("An agent wants to run:\n\n%s\n\nin %s (%s).\nAllow it?", q.Command, where, q.Why())
}

// Answer is a human's reply: the action they chose ("accept", "decline",
// "cancel", or what the client sent), or Unsolicited.
type Answer string

// Answers the gate acts on; any other answer refuses the command.
const (
	Accept Answer = "accept"
	// Unsolicited is an answer that matches no question this server asked
	// (forged, for another command, or expired).
	Unsolicited Answer = "unsolicited"
)

// CannotAskError is a Confirmer's error when no human can be asked.
type CannotAskError struct {
	// Why says why, in words for the agent: "this MCP client cannot ask one
	// (it does not support elicitation)".
	Why string
}

func (e *CannotAskError) Error() string { return e.Why }

// confirm asks the caller's human (accept / decline) and records the
// answer; anything but accept refuses the command.
func (g *Gate) confirm(ctx context.Context, c Caller, tool, sessionID, command, cwd string, d policy.Decision) error {
	q := Question{Tool: tool, Session: sessionID, Command: command, Cwd: cwd, Rule: d.Rule, Reason: d.Reason}
	var (
		a   Answer
		err error = &CannotAskError{Why: "nobody can be asked"}
	)
	if c.Confirmer != nil {
		a, err = c.Confirmer.Confirm(ctx, q)
	}
	var cannot *CannotAskError
	if errors.As(err, &cannot) {
		return g.refused(c, tool, sessionID, command, cwd, policy.Decision{Verdict: policy.Refuse, Rule: d.Rule, Subject: d.Subject,
			Reason: "this command needs a human's confirmation because " + q.Why() + ", and " + cannot.Why + "; ask the user to run it themselves or to change agentty's policy"})
	}
	if err != nil {
		return err
	}
	g.Record(audit.Event{Event: audit.EventConfirm, Tool: tool, Session: sessionID, Client: c.Client, Command: command, Cwd: cwd,
		Rule: d.Rule, Reason: string(a)})
	switch a {
	case Accept:
		return nil
	case Unsolicited:
		return g.refused(c, tool, sessionID, command, cwd, policy.Decision{Verdict: policy.Refuse, Rule: d.Rule,
			Reason: "a confirmation answer came without a matching question from this server (or it expired), so it did not run; call the tool again to be asked"})
	}
	return g.refused(c, tool, sessionID, command, cwd, policy.Decision{Verdict: policy.Refuse, Rule: d.Rule,
		Reason: fmt.Sprintf("the human answered %s when asked to confirm (%s); do not retry it, ask the user what to do instead", excerpt.Q(string(a)), q.Why())})
}
