package mcpserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/shell"
)

// The engine's typed errors say what happened; what the agent reads adds
// what to do next, which names this server's tools. That wording lives
// here so the engine knows nothing of tools.

// agentError returns err as the agent reads it: the text of the engine
// error in its chain is replaced by its wording for agents, and whatever
// the callers on the way added around it stays. errors.Is and errors.As see
// the same chain as before.
func agentError(err error) error {
	var done *wordedError
	if err == nil || errors.As(err, &done) {
		return err
	}
	engine, agent := wording(err)
	if agent == "" {
		return err
	}
	return &wordedError{msg: strings.Replace(err.Error(), engine, agent, 1), err: err}
}

// wordedError is an error worded for the agent.
type wordedError struct {
	msg string
	err error
}

func (e *wordedError) Error() string { return e.msg }
func (e *wordedError) Unwrap() error { return e.err }

// wording returns the text of the engine error in err's chain and what the
// agent reads instead ("", "" when err holds none of them).
func wording(err error) (engine, agent string) {
	for _, w := range nextSteps {
		if next, e := w(err); next != "" {
			return e.Error(), e.Error() + next
		}
	}
	return "", ""
}

// nextSteps say what to do after each engine error, appended to its text
// ("" for none).
var nextSteps = []func(error) (next string, engine error){
	nextStep(func(e *session.NotFoundError) string {
		return fmt.Sprintf("; call list_sessions to see the ids (exited sessions are removed after %v or by delete_session)", e.ExitedTTL)
	}),
	nextStep(func(*session.TooManySessionsError) string {
		return "; delete_session exited ones or terminate_process idle ones"
	}),
	nextStep(func(*session.TooManyFilesError) string {
		return "; end sessions you no longer need (terminate_process, delete_session) and retry, or restart agentty with a higher open-files limit (ulimit -n)"
	}),
	nextStep(func(*session.TooLongError) string {
		return "; nothing was started. Pass big data in a file (write_file, then have the program read it) or on stdin (run_command's stdin, or send_input to a mode=pipe session) instead of as arguments"
	}),
	nextStep(func(*session.RunningError) string { return "; call terminate_process first" }),
	nextStep(func(e *session.ExitedError) string {
		if e.Status != nil && e.Status.Lost != "" {
			return "; its output is still readable with read_output, start it again to continue"
		}
		return "; its output is still readable with read_output"
	}),
	nextStep(func(*session.StdinClosedError) string {
		return "; read its output with read_output, end it with terminate_process, or start it again to send input"
	}),
	nextStep(func(e *session.NotPTYError) string {
		if e.Op == session.OpScreen {
			return "; read_output shows its output (start with mode=pty for a screen)"
		}
		return "; resize_pty needs a session started with mode=pty"
	}),
	nextStep(func(e *session.ReaderNotFoundError) string {
		if e.Readers != nil {
			return "" // a read named a wrong reader: the error lists the right ones
		}
		return "; call register_reader first"
	}),
	nextStep(func(e *session.LeasedError) string {
		return fmt.Sprintf("; read_output still works; the lease ends %d s after their last key or when they detach", int(e.Timeout.Seconds()))
	}),
	nextStep(func(*session.LineTooLongError) string {
		return fmt.Sprintf(" Send lines of at most %d bytes, or write the data to a file with write_file and have the program read it (e.g. `prog < file`), or start the program with mode pipe", session.MaxCanonLine)
	}),
	nextStep(func(*shell.BusyError) string {
		return "; call await_command to wait for it, send_input to answer it, or send_input keys [\"ctrl+c\"] to interrupt it"
	}),
	nextStep(func(e *shell.NotReadyError) string {
		if e.Opening {
			return ": read_output shows what it printed, or open a shell with no_rc=true"
		}
		return ": read_output shows what it printed, send_input answers it"
	}),
	nextStep(func(*shell.NoCommandError) string { return "; use exec_command" }),
	nextStep(func(*shell.NotShellError) string {
		return ", not a shell opened with open_shell; open one with open_shell (or use run_command for a one-shot program)"
	}),
	nextStep(func(*shell.ShellExitedError) string {
		return "; open a new one with open_shell (its output stays readable with read_output)"
	}),
	nextStep(func(*contain.UnavailableError) string {
		return "; nothing was started. get_policy shows what this kernel offers: ask for less, or run agentty where it is available"
	}),
}

// nextStep adapts what to say after an engine error of type E to a check
// of any error's chain.
func nextStep[E error](next func(E) string) func(error) (string, error) {
	return func(err error) (string, error) {
		var e E
		if !errors.As(err, &e) {
			return "", nil
		}
		return next(e), e
	}
}
