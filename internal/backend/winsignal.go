package backend

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/agentty/agentty/internal/sigs"
)

// ErrSignalUnsupported is returned by Signal for a signal the platform's
// processes cannot receive (Windows has no SIGUSR1, SIGTSTP, ...).
var ErrSignalUnsupported = errors.New("signal not supported on this platform")

// winAction is how a Windows backend delivers a POSIX signal: Windows
// console programs know two control events, and the job can be ended.
type winAction uint8

const (
	winCtrlC     winAction = iota + 1 // CTRL_C_EVENT; on a ConPTY the byte 0x03
	winCtrlBreak                      // CTRL_BREAK_EVENT
	winEnd                            // TerminateJobObject: the whole tree
)

// windowsAction maps sig (Linux numbering, see internal/sigs) to what a
// Windows process can receive.
func windowsAction(sig syscall.Signal) (winAction, error) {
	name := sigs.Name(sig)
	switch name {
	case "SIGINT":
		return winCtrlC, nil
	case "SIGQUIT":
		return winCtrlBreak, nil
	case "SIGTERM", "SIGHUP", "SIGKILL":
		return winEnd, nil
	}
	if name == "" {
		name = fmt.Sprintf("signal %d", int(sig))
	}
	return 0, fmt.Errorf("%w: Windows has no %s; it takes SIGINT (Ctrl+C), SIGQUIT (Ctrl+Break), and SIGTERM, SIGHUP or SIGKILL, which end the whole process tree",
		ErrSignalUnsupported, name)
}
