package mcpserver

import "context"

// CommandRequest is a command an agent asked to run, as exec_command,
// retry_command, diff_commands (a shell script in a session) or
// run_command (argv, no shell) received it.
type CommandRequest struct {
	Tool    string   // the tool that received it
	Session string   // shell session id, for scripts
	Script  string   // shell command text (exec-style tools)
	Argv    []string // program and arguments (run_command)
	Cwd     string   // directory it runs in: the shell's current one, or run_command's cwd
}

// admit is the single place every command passes before it runs. It
// accepts everything today; a policy (allow/deny lists, audit) plugs in
// here and returns an error that says why a command was refused.
func (t *tools) admit(_ context.Context, _ CommandRequest) error {
	return nil
}
