package gate

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// Input is what send_input would type into a session.
type Input struct {
	Text  string
	Keys  []string // named keys after Text
	Enter bool     // Enter after text and keys
	EOF   bool     // end of input (audited only)
}

// completesLine reports whether the input ends with Enter, so a shell
// would run what was typed.
func completesLine(in Input) bool {
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

// Input applies the policy to send_input. Text that reaches a shell
// reading command lines (the foreground program is an interactive shell, or
// one runs anywhere in the session and the foreground program is not itself
// reading) is a command line and gets the same check as start_process's
// command. In pipe mode the "foreground" is the root, so a shell below it
// makes every line checked unless the root itself is reading.
func (g *Gate) Input(ctx context.Context, c Caller, s *session.Session, in Input) error {
	if g.policy == nil || len(in.Text) > g.maxInput {
		return nil // Send refuses input over the limit, naming the limit
	}
	v := inputView{remote: s.Host() != "", pipe: s.Mode == record.ModePipe}
	if !v.remote {
		// The walk over the session's processes costs a look at /proc;
		// a remote tree is not visible here.
		if v.fg, v.fgErr = s.Foreground(); v.fgErr != nil {
			v.exited = s.Status() != nil
		}
	}
	if v.remote || runsShell(v) {
		// Only a shell makes the state matter (judgeInput), and asking
		// the kernel costs a probe of the session's processes.
		v.state, _ = s.State()
	}
	j := judgeInput(v, in, g.policy.Enabled())
	switch {
	case j.refuse != nil:
		return g.refused(c, "send_input", s.ID, j.command, j.cwd, *j.refuse)
	case j.check:
		return g.decide(ctx, c, "send_input", s.ID, j.script, j.cwd, g.policy.CheckScript(j.script, j.cwd))
	}
	return nil
}

// runsShell reports whether the local session v describes runs an
// interactive shell: judgeInput looks at the session's state only then.
func runsShell(v inputView) bool {
	if v.fgErr != nil {
		return false
	}
	for _, p := range v.fg.Procs {
		if policy.IsInteractiveShell(p.Args) {
			return true
		}
	}
	return false
}

// inputView is what deciding about typed input looks at in a session.
type inputView struct {
	state  record.State // session state: running, awaiting_input, awaiting_password (read only with a shell in the session, or remote)
	remote bool         // the session runs on another host
	pipe   bool         // pipe mode: every process shares the one stdin
	fg     session.Foreground
	fgErr  error // the foreground could not be read
	exited bool  // (with fgErr) the session has exited
}

// inputJudgement is what to do with typed input: refuse it, check it as a
// command line, or (neither) let it through.
type inputJudgement struct {
	refuse  *policy.Decision
	command string // the refused input as the audit log shows it ("" when it may be a secret)
	check   bool
	script  string // the command line to check
	cwd     string // where the shell runs
}

func refuseInput(command, cwd, reason string) inputJudgement {
	return inputJudgement{refuse: &policy.Decision{Verdict: policy.Refuse, Rule: policy.RuleUndecidable, Reason: reason}, command: command, cwd: cwd}
}

// judgeInput decides about input typed into the session v describes; on
// says whether a command policy is on (off, only protected paths count).
func judgeInput(v inputView, in Input, on bool) inputJudgement {
	var fg session.Foreground
	atShell, treeShell := false, false
	if v.remote {
		// The remote process tree is not visible here (a pid there is not a
		// pid here), so under a policy every line typed into a remote
		// session is checked as a shell command line, except at a password
		// prompt. Protected directories are local paths: nothing to check
		// with the policy off.
		if !on || v.state == record.StateAwaitingPassword {
			return inputJudgement{}
		}
		fg.Comm, atShell, treeShell = "the remote program", true, true
	} else {
		if v.fgErr != nil {
			if v.exited || !on {
				return inputJudgement{} // exited (Send reports it), or nothing to enforce
			}
			return refuseInput("", "", fmt.Sprintf("cannot tell whether a shell would read this input (%v), so it is refused while a command policy is on", v.fgErr))
		}
		fg = v.fg
		// A shell in the foreground group reads what is typed; a shell
		// anywhere in the session gets typed-ahead lines once the
		// foreground program is done. In pipe mode every process shares
		// the one stdin.
		for _, p := range fg.Procs {
			if policy.IsInteractiveShell(p.Args) {
				treeShell = true
				atShell = atShell || p.PGID == fg.PGID || v.pipe
			}
		}
	}
	reading := v.state == record.StateAwaitingInput || v.state == record.StateAwaitingPassword
	secret := v.state == record.StateAwaitingPassword
	if on && atShell && secret && in.Text != "" {
		// read -s and stty -echo look the same: the text may be a secret or a
		// command line, and checking it would copy a secret into the refusal.
		return refuseInput("", fg.Cwd, "the shell itself reads with echo off (read -s or stty -echo), so agentty cannot tell a secret from a command line; text is refused here while a command policy is on (ctrl+c still works); run the program that asks for a secret as its own session")
	}
	// Without a policy, a shell asking for a secret is left alone.
	checked := (atShell && !(secret && !on)) || (treeShell && !reading)
	if !checked {
		if on && treeShell && strings.Count(in.Text, "\n")+strings.Count(in.Text, "\r") > 1 {
			return refuseInput(in.Text, fg.Cwd, fg.Comm+" reads this input, but lines it does not read would reach the shell unchecked; send one line per call")
		}
		return inputJudgement{}
	}
	if on {
		for _, k := range in.Keys {
			if !promptKeys[k] {
				return refuseInput(in.Text, fg.Cwd, fmt.Sprintf("key %s at a shell prompt can recall, complete or edit the command line past the checker; type the whole command as text with enter=true", excerpt.Q(k)))
			}
		}
		if strings.ContainsFunc(in.Text, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' || r == 0x7f }) {
			return refuseInput(in.Text, fg.Cwd, "control characters at a shell prompt can recall or edit history past the checker; send plain text")
		}
		if last := strings.LastIndexAny(in.Text, "\r\n"); in.Text != "" && !in.Enter && !completesLine(Input{Keys: in.Keys}) && last != len(in.Text)-1 {
			return refuseInput(in.Text, fg.Cwd, "a partial command line at a shell prompt cannot be checked (later input would complete it unseen); send the whole command with enter=true")
		}
	}
	if !completesLine(in) {
		return inputJudgement{}
	}
	script := strings.TrimRight(strings.ReplaceAll(in.Text, "\r", "\n"), "\n")
	return inputJudgement{check: true, script: script, cwd: fg.Cwd}
}
