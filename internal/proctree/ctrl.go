package proctree

import (
	"fmt"
	"strconv"
)

// CtrlArg is the subcommand word that makes agentty's executable deliver
// a console control event to another process's console (RunCtrl):
// "agentty __ctrl PID c|break". Windows only; guardstart runs it.
const CtrlArg = "__ctrl"

// Console control events (wincon.h CTRL_C_EVENT, CTRL_BREAK_EVENT).
const (
	ctrlCEvent     = 0
	ctrlBreakEvent = 1
)

// CtrlEventName is the word RunCtrl takes for a console event.
func CtrlEventName(ev uint32) string {
	if ev == ctrlBreakEvent {
		return "break"
	}
	return "c"
}

// parseCtrl reads RunCtrl's arguments: the pid whose console to attach to
// and the event.
func parseCtrl(args []string) (pid uint32, ev uint32, err error) {
	if len(args) != 2 {
		return 0, 0, fmt.Errorf("usage: %s PID c|break", CtrlArg)
	}
	n, err := strconv.ParseUint(args[0], 10, 32)
	if err != nil || n == 0 {
		return 0, 0, fmt.Errorf("%s: bad pid %q", CtrlArg, args[0])
	}
	switch args[1] {
	case "c":
		return uint32(n), ctrlCEvent, nil
	case "break":
		return uint32(n), ctrlBreakEvent, nil
	}
	return 0, 0, fmt.Errorf("%s: unknown event %q (c or break)", CtrlArg, args[1])
}
