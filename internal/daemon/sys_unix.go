//go:build unix

package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// supported: the daemon runs here.
const supported = true

// lockFile takes f's exclusive flock without waiting: ErrRunning when
// another process holds it. The kernel drops it when the holder dies.
func lockFile(f *os.File) error {
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return ErrRunning
		}
		return err
	}
	return nil
}

// listenPrivate listens on socket, created 0600 from the start, never
// briefly open.
func listenPrivate(socket string) (*net.UnixListener, error) {
	old := unix.Umask(0o177)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
	unix.Umask(old)
	return ln, err
}

// checkOwner refuses a socket directory of another user.
func checkOwner(dir string, st os.FileInfo) error {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("socket directory %s belongs to uid %d, not to this user", dir, sys.Uid)
	}
	return nil
}

// detached puts the daemon in a session of its own (setsid): no
// controlling terminal, no signal to the caller's group reaches it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
