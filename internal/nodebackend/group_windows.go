package nodebackend

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts a process in its own console process group, which a
// console's Ctrl+C does not reach.
func ownGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// statusArgs names the status pipe's handle: Windows passes handles, not
// numbered descriptors, so agentty-link is told its value.
func statusArgs(status *os.File) []string {
	return []string{"-status-handle", fmt.Sprint(status.Fd())}
}

// startLink starts the link in its own group, inheriting status (and only
// it, besides the standard handles).
func startLink(cmd *exec.Cmd, status *os.File) error {
	h := syscall.Handle(status.Fd())
	if err := syscall.SetHandleInformation(h, syscall.HANDLE_FLAG_INHERIT, syscall.HANDLE_FLAG_INHERIT); err != nil {
		return fmt.Errorf("status pipe: %w", err)
	}
	attr := ownGroup()
	attr.AdditionalInheritedHandles = []syscall.Handle{h}
	cmd.SysProcAttr = attr
	return cmd.Start()
}
