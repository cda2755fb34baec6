//go:build windows

package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"

	"github.com/agentty/agentty/internal/winacl"
)

// lockFile locks f's first byte exclusively without waiting (LockFileEx):
// ErrRunning when another process holds it. Windows releases it when the
// holder's handle closes, which its death does.
func lockFile(f *os.File) error {
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return ErrRunning
	}
	return err
}

// listenPrivate listens on socket. Windows has no umask: the socket file
// inherits the private DACL prepareDir put on its directory (OICI), so it
// is never briefly open either.
func listenPrivate(socket string) (*net.UnixListener, error) {
	return net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
}

// checkOwner refuses a socket directory of another user.
func checkOwner(dir string, _ os.FileInfo) error {
	if err := winacl.CheckOwned(dir); err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	return nil
}

// isPrivate: a mode says nothing here; the DACL is set each time, which
// costs one call and repairs one that was changed.
func isPrivate(os.FileInfo) bool { return false }

func makePrivate(dir string) error { return winacl.MakePrivate(dir) }

// sharedDir refuses: whether others may write a directory is a question
// of its DACL's every entry and the groups this user is in, which agentty
// does not judge; a directory of its own is made private instead.
func sharedDir(dir string, _ os.FileInfo) error {
	return fmt.Errorf("socket directory %s holds other files, so agentty does not make it private, and on Windows it cannot tell who else may write there; give -socket a path in a directory of its own, such as %s",
		dir, ownDirHint(dir))
}

// detachedFlags: no console (DETACHED_PROCESS), Ctrl+C and Ctrl+Break of
// the caller's console never reach it (a group of its own), and out of the
// caller's job, whose closing (KILL_ON_JOB_CLOSE: an MCP client's, a
// terminal's) would otherwise end it with the client.
const detachedFlags = windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_BREAKAWAY_FROM_JOB

// startDetached starts the daemon detached; the write end w of the ready
// pipe is the one handle it inherits besides the null device, its value
// passed in the arguments. A job that forbids breakaway fails the start
// with ACCESS_DENIED: then the daemon starts inside the job, and Warn says
// it ends when that job does.
func startDetached(o SpawnOptions, w *os.File, command func() *exec.Cmd) (*exec.Cmd, error) {
	h := windows.Handle(w.Fd())
	if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
		return nil, fmt.Errorf("ready pipe: %w", err)
	}
	start := func(flags uint32) (*exec.Cmd, error) {
		cmd := command()
		cmd.Args = append(cmd.Args, o.Args(uintptr(h))...)
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags, HideWindow: true, AdditionalInheritedHandles: []syscall.Handle{syscall.Handle(h)}}
		return cmd, cmd.Start()
	}
	cmd, err := start(detachedFlags)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		o.Warn("the daemon could not leave this client's job (it forbids breakaway), so it ends when the job does: sessions do not outlive the job")
		cmd, err = start(detachedFlags &^ windows.CREATE_BREAKAWAY_FROM_JOB)
	}
	return cmd, err
}

// runtimeDirEnv names the per-user directory the socket goes in: the
// local (not roaming) application data, never synced to another machine.
const runtimeDirEnv = "LOCALAPPDATA"
