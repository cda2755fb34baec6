//go:build unix

package nodebackend

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts a process in its own process group.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// statusArgs: the status pipe is fd 3, where agentty-link looks.
func statusArgs(*os.File) []string { return nil }

// startLink starts the link in its own group with status as fd 3.
func startLink(cmd *exec.Cmd, status *os.File) error {
	cmd.ExtraFiles = []*os.File{status}
	cmd.SysProcAttr = ownGroup()
	return cmd.Start()
}
