package mcpserver

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/shell"
)

// What the agent reads for each typed engine error is, byte for byte, the
// message the engine wrote itself before it stopped naming tools (the want
// column keeps those format strings), and errors.Is still finds the
// sentinel.
func TestAgentError_Wording(t *testing.T) {
	emfile := fmt.Errorf("fork/exec /usr/bin/true: %w", syscall.EMFILE)
	cases := []struct {
		name     string
		err      error
		sentinel error
		want     string
	}{
		{"session not found", &session.NotFoundError{ID: "s999", ExitedTTL: 10 * time.Minute}, session.ErrSessionNotFound,
			fmt.Sprintf("%v: %s; call list_sessions to see the ids (exited sessions are removed after %v or by delete_session)", session.ErrSessionNotFound, excerpt.Q("s999"), 10*time.Minute)},
		{"too many sessions", &session.TooManySessionsError{Count: 5, Limit: 5}, session.ErrTooManySessions,
			fmt.Sprintf("%v: %d sessions exist (limit %d); delete_session exited ones or terminate_process idle ones", session.ErrTooManySessions, 5, 5)},
		{"too many files", &session.TooManyFilesError{Open: "64", Limit: "64", Path: "/usr/bin/true", Err: emfile}, session.ErrTooManyFiles,
			fmt.Sprintf("%v (agentty has %s open, limit %s): start %s: %v; end sessions you no longer need (terminate_process, delete_session) and retry, or restart agentty with a higher open-files limit (ulimit -n)",
				session.ErrTooManyFiles, "64", "64", "/usr/bin/true", emfile)},
		{"delete running", &session.RunningError{ID: "s1"}, session.ErrRunning,
			fmt.Sprintf("%v: session %s is running; call terminate_process first", session.ErrRunning, "s1")},
		{"exited with code", &session.ExitedError{ID: "s1", Status: &record.ExitStatus{Code: 3}}, session.ErrExited,
			fmt.Sprintf("%v: session %s %s; its output is still readable with read_output", session.ErrExited, "s1", "exited with code 3")},
		{"killed", &session.ExitedError{ID: "s1", Status: &record.ExitStatus{Code: -1, Signal: "SIGKILL"}}, session.ErrExited,
			fmt.Sprintf("%v: session %s %s; its output is still readable with read_output", session.ErrExited, "s1", "was killed by SIGKILL")},
		{"exited, status not collected", &session.ExitedError{ID: "s1"}, session.ErrExited,
			fmt.Sprintf("%v: session %s %s; its output is still readable with read_output", session.ErrExited, "s1", "exited")},
		{"lost", &session.ExitedError{ID: "s1", Status: &record.ExitStatus{Lost: "connection to h:22 closed"}}, session.ErrExited,
			fmt.Sprintf("%v: session %s is lost (%s); its output is still readable with read_output, start it again to continue", session.ErrExited, "s1", "connection to h:22 closed")},
		{"stdin closed", &session.StdinClosedError{ID: "s1"}, session.ErrStdinClosed,
			fmt.Sprintf("%v: session %s is still running but no process reads its stdin any more (the program closed it), so input cannot be delivered; "+
				"read its output with read_output, end it with terminate_process, or start it again to send input", session.ErrStdinClosed, "s1")},
		{"resize a pipe session", &session.NotPTYError{ID: "s1", Op: session.OpResize}, session.ErrNotPTY,
			fmt.Sprintf("%v: session %s runs with pipes; resize_pty needs a session started with mode=pty", session.ErrNotPTY, "s1")},
		{"screen of a pipe session", &session.NotPTYError{ID: "s1", Op: session.OpScreen}, session.ErrNotPTY,
			fmt.Sprintf("%v: session %s runs with pipes, which have no terminal; read_output shows its output (start with mode=pty for a screen)", session.ErrNotPTY, "s1")},
		{"unregister unknown reader", &session.ReaderNotFoundError{ID: "s1", Reader: 7}, session.ErrReaderNotFound,
			fmt.Sprintf("%v: reader %d on session %s; call register_reader first", session.ErrReaderNotFound, 7, "s1")},
		{"read unknown reader", &session.ReaderNotFoundError{ID: "s1", Reader: 7, Readers: []int{0, 2}}, session.ErrReaderNotFound,
			fmt.Sprintf("%v: reader %d on session %s; readers are %v", session.ErrReaderNotFound, 7, "s1", []int{0, 2})},
		{"line too long", &session.LineTooLongError{ID: "s1", Length: 5000}, session.ErrLineTooLong, lineTooLong("s1", 5000, "")},
		{"line too long, earlier bytes", &session.LineTooLongError{ID: "s1", Length: 5000, Earlier: 10}, session.ErrLineTooLong,
			lineTooLong("s1", 5000, ", 10 of them sent by earlier calls without a line end (send enter to end that line, or keys [\"ctrl+u\"] to erase it)")},
		{"shell busy", &shell.BusyError{ID: "s1", Command: "sleep 9", Running: 1500 * time.Millisecond}, shell.ErrBusy,
			fmt.Sprintf("%v: %q (started %s ago) is still running in session %s; call await_command to wait for it, send_input to answer it, or send_input keys [\"ctrl+c\"] to interrupt it",
				shell.ErrBusy, "sleep 9", 1500*time.Millisecond, "s1")},
		{"exec before the first prompt", &shell.NotReadyError{ID: "s1"}, shell.ErrNotReady,
			fmt.Sprintf("%v: the shell of session %s has not shown its first prompt yet (its rc files may ask something): read_output shows what it printed, send_input answers it", shell.ErrNotReady, "s1")},
		{"open without a prompt", &shell.NotReadyError{ID: "s1", Opening: true, Kind: "bash", Waited: 10 * time.Second}, shell.ErrNotReady,
			fmt.Sprintf("%v: %s started as session %s but printed no prompt within %v; its rc files may wait for input: read_output shows what it printed, or open a shell with no_rc=true",
				shell.ErrNotReady, "bash", "s1", 10*time.Second)},
		{"await with no command", &shell.NoCommandError{ID: "s1"}, shell.ErrNoCommand,
			fmt.Sprintf("%v: no command was started in session %s; use exec_command", shell.ErrNoCommand, "s1")},
		{"not a shell", &shell.NotShellError{ID: "s1", Command: excerpt.Q("python3")}, shell.ErrNotShell,
			fmt.Sprintf("%v: session %s runs %s, not a shell opened with open_shell; open one with open_shell (or use run_command for a one-shot program)", shell.ErrNotShell, "s1", excerpt.Q("python3"))},
		{"shell exited", &shell.ShellExitedError{ID: "s1", Status: &record.ExitStatus{Code: 1}}, shell.ErrShellExited,
			fmt.Sprintf("%v: the shell of session %s %s; open a new one with open_shell (its output stays readable with read_output)", shell.ErrShellExited, "s1", "exited with code 1")},
		{"shell killed", &shell.ShellExitedError{ID: "s1", Status: &record.ExitStatus{Code: -1, Signal: "SIGHUP"}}, shell.ErrShellExited,
			fmt.Sprintf("%v: the shell of session %s %s; open a new one with open_shell (its output stays readable with read_output)", shell.ErrShellExited, "s1", "was killed by SIGHUP")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := agentError(tc.err)
			if got.Error() != tc.want {
				t.Errorf("agent reads\n%q\nwant\n%q", got.Error(), tc.want)
			}
			if !errors.Is(got, tc.sentinel) {
				t.Errorf("errors.Is(%v) = false", tc.sentinel)
			}
			if again := agentError(got); again.Error() != tc.want {
				t.Errorf("worded twice: %q", again.Error())
			}
		})
	}
}

func lineTooLong(id string, length int, earlier string) string {
	return fmt.Sprintf("%v: the terminal of session %s is in canonical (line) mode, where the program receives at most %d bytes of one line and the kernel drops the rest; "+
		"this input makes a line of %d bytes%s. Nothing was sent. Send lines of at most %d bytes, or write the data to a file with write_file and have the program read it (e.g. `prog < file`), or start the program with mode pipe",
		session.ErrLineTooLong, id, session.MaxCanonLine, length, earlier, session.MaxCanonLine)
}

// Context added around an engine error on its way up stays where it was;
// errors the server words itself, and nil, pass unchanged.
func TestAgentError_Chain(t *testing.T) {
	exited := &session.ExitedError{ID: "s1", Status: &record.ExitStatus{Code: 0}}
	wrapped := fmt.Errorf("shell: type the command: %w", exited)
	want := "shell: type the command: process has exited: session s1 exited with code 0; its output is still readable with read_output"
	if got := agentError(wrapped); got.Error() != want {
		t.Errorf("wrapped: %q, want %q", got.Error(), want)
	}
	var as *session.ExitedError
	if got := agentError(wrapped); !errors.As(got, &as) || as != exited {
		t.Errorf("errors.As lost the engine error: %v", got)
	}
	own := fmt.Errorf("%w: %s is not in the transcript store (call list_sessions for ids)", session.ErrSessionNotFound, excerpt.Q("s9"))
	if got := agentError(own); got != own {
		t.Errorf("the server's own error was reworded: %q", got)
	}
	if agentError(nil) != nil {
		t.Error("agentError(nil) != nil")
	}
}
