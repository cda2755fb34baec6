package shell

import (
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/record"
)

// Typed errors carry the facts a front end needs to say what to do next.
// Each unwraps to its sentinel (see shell.go), so errors.Is keeps working;
// their text states what happened and names no front end's commands.

// BusyError: a command is still running in the shell.
type BusyError struct {
	ID      string        // the shell's session
	Command string        // the running command, clipped to 200 bytes
	Running time.Duration // since it started, rounded to the millisecond
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%v: %q (started %s ago) is still running in session %s", ErrBusy, e.Command, e.Running, e.ID)
}
func (e *BusyError) Unwrap() error { return ErrBusy }

// NotReadyError: the shell has not shown its first prompt.
type NotReadyError struct {
	ID string
	// Opening is set when Open waited Waited for the first prompt of a
	// shell of kind Kind; else a command came before the first prompt.
	Opening bool
	Kind    Kind
	Waited  time.Duration
}

func (e *NotReadyError) Error() string {
	if e.Opening {
		return fmt.Sprintf("%v: %s started as session %s but printed no prompt within %v; its rc files may wait for input", ErrNotReady, e.Kind, e.ID, e.Waited)
	}
	return fmt.Sprintf("%v: the shell of session %s has not shown its first prompt yet (its rc files may ask something)", ErrNotReady, e.ID)
}
func (e *NotReadyError) Unwrap() error { return ErrNotReady }

// NoCommandError: Await was called before any Exec.
type NoCommandError struct{ ID string }

func (e *NoCommandError) Error() string {
	return fmt.Sprintf("%v: no command was started in session %s", ErrNoCommand, e.ID)
}
func (e *NoCommandError) Unwrap() error { return ErrNoCommand }

// NotShellError: the session runs a program that was not opened as a shell.
type NotShellError struct {
	ID      string
	Command string // what the session runs, quoted and clipped for display
}

func (e *NotShellError) Error() string {
	return fmt.Sprintf("%v: session %s runs %s", ErrNotShell, e.ID, e.Command)
}
func (e *NotShellError) Unwrap() error { return ErrNotShell }

// ShellExitedError: the shell process is gone; its output stays readable.
type ShellExitedError struct {
	ID     string
	Status *record.ExitStatus // nil if not collected yet
}

func (e *ShellExitedError) Error() string {
	how := "exited"
	if st := e.Status; st != nil {
		if st.Signal != "" {
			how = "was killed by " + st.Signal
		} else {
			how = fmt.Sprintf("exited with code %d", st.Code)
		}
	}
	return fmt.Sprintf("%v: the shell of session %s %s", ErrShellExited, e.ID, how)
}
func (e *ShellExitedError) Unwrap() error { return ErrShellExited }
