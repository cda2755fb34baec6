package proctree

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// x/sys/windows does not wrap these.
var (
	kernel32                  = windows.NewLazySystemDLL("kernel32.dll")
	procFreeConsole           = kernel32.NewProc("FreeConsole")
	procAttachConsole         = kernel32.NewProc("AttachConsole")
	procSetConsoleCtrlHandler = kernel32.NewProc("SetConsoleCtrlHandler")
)

// RunCtrl raises a console control event on another process's console:
// GenerateConsoleCtrlEvent reaches only the caller's own console, and the
// agentty daemon has none, while each pipe session's program has a
// hidden one (CREATE_NO_WINDOW). So this helper leaves its console,
// attaches to the program's, ignores the event itself, and raises it for
// every process there. It returns the exit status.
func RunCtrl(args []string) int {
	pid, ev, err := parseCtrl(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	procFreeConsole.Call()
	if r, _, err := procAttachConsole.Call(uintptr(pid)); r == 0 {
		fmt.Fprintf(os.Stderr, "%s: attach to the console of %d: %v\n", CtrlArg, pid, err)
		return 1
	}
	// A nil handler with TRUE: this process ignores Ctrl+C.
	if r, _, err := procSetConsoleCtrlHandler.Call(0, 1); r == 0 {
		fmt.Fprintf(os.Stderr, "%s: ignore the event here: %v\n", CtrlArg, err)
		return 1
	}
	if err := windows.GenerateConsoleCtrlEvent(ev, 0); err != nil {
		fmt.Fprintf(os.Stderr, "%s: raise %s on the console of %d: %v\n", CtrlArg, CtrlEventName(ev), pid, err)
		return 1
	}
	return 0
}
