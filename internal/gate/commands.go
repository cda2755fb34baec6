package gate

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/session"
)

// Command is a command an agent asked to run, as exec_command,
// retry_command, diff_commands (a shell script in a session) or
// run_command (argv, no shell) received it.
type Command struct {
	Tool    string            // the tool that received it
	Session string            // shell session id, for scripts
	Script  string            // shell command text (exec-style tools)
	Argv    []string          // program and arguments (run_command)
	Env     map[string]string // extra environment (run_command)
	Cwd     string            // directory it runs in: the shell's current one, or run_command's cwd
	Host    string            // the remote host it runs on ("" here); named in refusals and the audit log
}

// Command is the single place every command passes before it runs: the
// command policy decides (refuse, ask the human, or run), and an admitted
// command is written to the audit log before it starts.
func (g *Gate) Command(ctx context.Context, c Caller, r Command) error {
	command := r.Script
	if r.Argv != nil {
		command = strings.Join(r.Argv, " ")
	}
	if err := g.inputLimit(c, r.Tool, r.Session, command, r.Argv != nil); err != nil {
		return err
	}
	var d policy.Decision
	if r.Argv != nil {
		d = g.policy.CheckArgv(r.Argv, r.Cwd)
	} else {
		d = g.policy.CheckScript(r.Script, r.Cwd)
	}
	if d.Verdict != policy.Refuse && len(r.Env) > 0 {
		if e := g.policy.CheckEnv(r.Env); e.Verdict == policy.Refuse {
			d = e
		}
	}
	if r.Host != "" {
		command += " (on " + r.Host + ")"
		d = onHost(d, r.Host)
	}
	if err := g.decide(ctx, c, r.Tool, r.Session, command, r.Cwd, d); err != nil {
		return err
	}
	g.Record(audit.Event{Event: audit.EventExec, Tool: r.Tool, Session: r.Session, Client: c.Client, Command: command, Cwd: r.Cwd})
	return nil
}

// Start applies the policy to start_process: Script when given, else
// Argv. The start itself is audited once it happened (Started).
func (g *Gate) Start(ctx context.Context, c Caller, r Command) error {
	command := r.Script
	if r.Script == "" {
		command = strings.Join(r.Argv, " ")
	}
	if err := g.inputLimit(c, "start_process", "", command, r.Script == ""); err != nil {
		return err
	}
	var d policy.Decision
	if r.Script != "" {
		d = g.policy.CheckScript(r.Script, r.Cwd)
	} else {
		d = g.policy.CheckArgv(r.Argv, r.Cwd)
	}
	if d.Verdict != policy.Refuse {
		if e := g.policy.CheckEnv(r.Env); e.Verdict == policy.Refuse {
			d = e
		}
	}
	return g.decide(ctx, c, "start_process", "", command, r.Cwd, d)
}

// Shell passes a shell program open_shell would start through the policy
// like any start (secure mode runs no shells); each command typed into it
// is checked later. On a host the program name is checked as given (it is
// looked up there), with the host named in refusals.
func (g *Gate) Shell(ctx context.Context, c Caller, program string, env map[string]string, cwd, host string) error {
	d := g.policy.CheckArgv([]string{program}, cwd)
	if d.Verdict != policy.Refuse {
		if e := g.policy.CheckEnv(env); e.Verdict == policy.Refuse {
			d = e
		}
	}
	if host != "" {
		return g.decide(ctx, c, "open_shell", "", program+" (on "+host+")", cwd, onHost(d, host))
	}
	return g.decide(ctx, c, "open_shell", "", program, cwd, d)
}

// Write passes a write_file target through the policy's path check
// (protected directories such as agentty's configuration, allowed roots).
// p is absolute: a local path, or on host a path there.
func (g *Gate) Write(ctx context.Context, c Caller, sessionID, p, host string) error {
	if host != "" {
		d := onHost(g.policy.CheckPath(p, path.Dir(p)), host)
		return g.decide(ctx, c, "write_file", sessionID, "write_file "+p+" (on "+host+")", path.Dir(p), d)
	}
	return g.decide(ctx, c, "write_file", sessionID, "write_file "+p, filepath.Dir(p), g.policy.CheckPath(p, filepath.Dir(p)))
}

// onHost names the host in a refusal's reason, so the agent sees where the
// refused command would have run.
func onHost(d policy.Decision, host string) policy.Decision {
	if d.Verdict == policy.Refuse {
		d.Reason += " (on " + host + ")"
	}
	return d
}

// inputLimit refuses a command line longer than the input one call may
// carry, before the policy checker would refuse it for its own length. An
// argv counts as its words joined by spaces, as the audit log shows it.
func (g *Gate) inputLimit(c Caller, tool, sessionID, command string, argv bool) error {
	limit := g.maxInput
	if len(command) <= limit {
		return nil
	}
	what, instead := "command", "write a long script to a file with write_file and run the file"
	if argv {
		what, instead = "command line", "pass big data in a file (write_file) or on stdin instead of as arguments"
	}
	err := fmt.Errorf("%w: the %s is %d bytes; this server takes at most %d bytes of input per call (flag -max-input-bytes): %s, or raise -max-input-bytes",
		session.ErrInputTooLarge, what, len(command), limit, instead)
	return g.LimitRefused(c.Client, tool, sessionID, fmt.Sprintf("(a command of %d bytes)", len(command)), "max-input-bytes", err)
}
