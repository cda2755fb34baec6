package policy

import (
	"errors"
	"fmt"

	"github.com/agentty/agentty/internal/excerpt"
)

// Verdict is what a check decided.
type Verdict string

// Verdicts.
const (
	Allow   Verdict = "allow"
	Refuse  Verdict = "refuse"
	Confirm Verdict = "confirm" // allowed once a human agrees
)

// Rule names, as written in the configuration where they come from one.
const (
	RuleNone            = ""
	RuleAllow           = "allow"
	RuleDeny            = "deny"
	RuleDenyPatterns    = "deny_patterns"
	RuleConfirm         = "confirm"
	RuleConfirmPatterns = "confirm_patterns"
	RuleCwd             = "cwd"
	RuleSecure          = "secure"
	RuleProtected       = "protected"   // configuration and audit directories
	RuleUndecidable     = "undecidable" // the checker cannot know what would run
	RuleEnv             = "env"         // variables that change what runs (PATH, LD_PRELOAD...)
	RuleEmbeddedCode    = "embedded_code"
	RuleSyntax          = "syntax"
	RuleLength          = "length"
)

// ErrRefused is wrapped by every refusal's error.
var ErrRefused = errors.New("refused by policy")

// Decision is the outcome of a check and what decided it.
type Decision struct {
	Verdict Verdict
	// Rule names the configuration entry (or built-in rule) that decided;
	// empty for an allow with no rules configured.
	Rule string
	// Subject is the command, word or path the rule applied to.
	Subject string
	// Reason explains the decision in words an agent can act on.
	Reason string
}

// Allowed reports whether the command may run without asking anyone.
func (d Decision) Allowed() bool { return d.Verdict == Allow || d.Verdict == "" }

// Err is nil unless the decision refuses; the error says which rule refused
// what and why, and wraps ErrRefused.
func (d Decision) Err() error {
	if d.Verdict != Refuse {
		return nil
	}
	return fmt.Errorf("%w: %s (rule %s)", ErrRefused, d.Reason, d.Rule)
}

// String renders the decision for messages and logs.
func (d Decision) String() string {
	s := string(d.Verdict)
	if d.Subject != "" {
		s += " " + excerpt.Q(d.Subject)
	}
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	if d.Rule != "" {
		s += " (rule " + d.Rule + ")"
	}
	return s
}

func refuse(rule, subject, format string, args ...any) Decision {
	return Decision{Verdict: Refuse, Rule: rule, Subject: subject, Reason: fmt.Sprintf(format, args...)}
}

var allowed = Decision{Verdict: Allow}
