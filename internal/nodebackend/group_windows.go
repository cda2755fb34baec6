package nodebackend

import "syscall"

// ownGroup starts a process in its own console process group, which a
// console's Ctrl+C does not reach.
func ownGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
