//go:build !windows

package proctree

import (
	"fmt"
	"os"
)

// RunCtrl is Windows' only: other systems deliver signals themselves.
func RunCtrl(args []string) int {
	if _, _, err := parseCtrl(args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Fprintf(os.Stderr, "%s: console control events exist on Windows only\n", CtrlArg)
	return 2
}
