package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/policy"
)

// CommandRequest is a command an agent asked to run, as exec_command,
// retry_command, diff_commands (a shell script in a session) or
// run_command (argv, no shell) received it.
type CommandRequest struct {
	Tool    string            // the tool that received it
	Session string            // shell session id, for scripts
	Script  string            // shell command text (exec-style tools)
	Argv    []string          // program and arguments (run_command)
	Env     map[string]string // extra environment (run_command)
	Cwd     string            // directory it runs in: the shell's current one, or run_command's cwd
	Host    string            // the remote host it runs on ("" here); named in refusals and the audit log
}

// admit is the single place every command passes before it runs: the
// command policy decides (refuse, ask the human, or run), and an admitted
// command is written to the audit log before it starts.
func (t *tools) admit(ctx context.Context, req *mcp.CallToolRequest, c CommandRequest) error {
	if err := t.inputLimit(req, c.Tool, c.Session, c.Script); err != nil {
		return err
	}
	command := c.Script
	var d policy.Decision
	if c.Argv != nil {
		command = strings.Join(c.Argv, " ")
		d = t.policy.CheckArgv(c.Argv, c.Cwd)
	} else {
		d = t.policy.CheckScript(c.Script, c.Cwd)
	}
	if d.Verdict != policy.Refuse && len(c.Env) > 0 {
		if e := t.policy.CheckEnv(c.Env); e.Verdict == policy.Refuse {
			d = e
		}
	}
	if c.Host != "" {
		command += " (on " + c.Host + ")"
		d = onHost(d, c.Host)
	}
	if err := t.decide(ctx, req, c.Tool, c.Session, command, c.Cwd, d); err != nil {
		return err
	}
	t.record(audit.Event{Event: audit.EventExec, Tool: c.Tool, Session: c.Session, Client: clientOf(req), Command: command, Cwd: c.Cwd})
	return nil
}

// onHost names the host in a refusal's reason, so the agent sees where the
// refused command would have run.
func onHost(d policy.Decision, host string) policy.Decision {
	if d.Verdict == policy.Refuse {
		d.Reason += " (on " + host + ")"
	}
	return d
}
