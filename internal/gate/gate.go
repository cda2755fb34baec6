// Package gate decides what a tool call may do before the session engine
// does it: the command policy (internal/policy) for commands, shells,
// typed input and file writes, a human's confirmation where a rule asks
// for one, the server's per-call limits, and the audit log
// (internal/audit) of what was admitted, refused and answered.
//
// It knows no protocol. A front end (the MCP server) describes each call
// as a Caller: the client's name for the audit log and a Confirmer that
// asks the human (MCP elicitation). Every refusal is an error that names
// the rule and wraps policy.ErrRefused, so the agent can adapt.
package gate

import (
	"context"
	"log/slog"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/session"
)

// Options configure a Gate.
type Options struct {
	// Policy decides which commands may run (nil: all).
	Policy *policy.Policy
	// Audit records starts, inputs, stops, refusals and confirmations (nil: none).
	Audit *audit.Log
	// MaxInputBytes is the longest command line one call may carry
	// (session.Manager.MaxInputBytes; 0: session.MaxInputBytes); a longer
	// one is refused by this limit before the policy would refuse it for
	// its length.
	MaxInputBytes int
	// MaxReadBytes caps max_bytes of every reading call (0: session.MaxBytesCap).
	MaxReadBytes int
	// Logger reports audit log write failures (nil: discarded).
	Logger *slog.Logger
}

// Gate is the admission point of one server. Its fields are set by New
// and never change, so it is safe for concurrent calls.
type Gate struct {
	policy   *policy.Policy // nil: everything allowed
	audit    *audit.Log     // nil: no audit log
	maxInput int
	maxRead  int // 0: no server limit below session.MaxBytesCap
	log      *slog.Logger
}

// New returns a gate applying o.
func New(o Options) *Gate {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	maxInput := o.MaxInputBytes
	if maxInput <= 0 {
		maxInput = session.MaxInputBytes
	}
	return &Gate{policy: o.Policy, audit: o.Audit, maxInput: maxInput, maxRead: o.MaxReadBytes, log: log}
}

// Policy is the command policy in force (nil: none), for showing it.
func (g *Gate) Policy() *policy.Policy { return g.policy }

// MaxRead is the server's cap on one call's max_bytes (0: none below
// session.MaxBytesCap).
func (g *Gate) MaxRead() int { return g.maxRead }

// Caller is who makes a call, as the gate needs to know them.
type Caller struct {
	// Client names the client in the audit log ("stdio", "http ADDR ...").
	Client string
	// Confirmer asks the client's human when a rule wants confirmation;
	// nil: nobody can be asked, so such commands are refused.
	Confirmer Confirmer
}

// decide turns a decision into nil (run it) or an error, asking the human
// first when the decision is Confirm.
func (g *Gate) decide(ctx context.Context, c Caller, tool, sessionID, command, cwd string, d policy.Decision) error {
	switch d.Verdict {
	case policy.Refuse:
		return g.refused(c, tool, sessionID, command, cwd, d)
	case policy.Confirm:
		return g.confirm(ctx, c, tool, sessionID, command, cwd, d)
	}
	return nil
}

// refused records a refusal and returns its error.
func (g *Gate) refused(c Caller, tool, sessionID, command, cwd string, d policy.Decision) error {
	g.Record(audit.Event{Event: audit.EventRefusal, Tool: tool, Session: sessionID, Client: c.Client,
		Command: command, Cwd: cwd, Rule: d.Rule, Reason: d.Reason})
	return d.Err()
}
