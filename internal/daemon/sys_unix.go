//go:build unix

package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

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

// isPrivate: a 0700 directory needs nothing.
func isPrivate(st os.FileInfo) bool { return st.Mode().Perm() == 0o700 }

func makePrivate(dir string) error { return os.Chmod(dir, 0o700) }

// sharedDir judges a directory that holds other files: one others can
// write is refused, any other is used as it is, the socket itself being
// 0600 and every peer's uid checked.
func sharedDir(dir string, st os.FileInfo) error {
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("socket directory %s can be written by others (mode %04o) and holds other files, so it is left alone; give -socket a path in a directory of its own, such as %s",
			dir, st.Mode().Perm()|st.Mode()&os.ModeSticky, ownDirHint(dir))
	}
	return nil
}

// startDetached starts the daemon in a session of its own (setsid): no
// controlling terminal, no signal to the caller's group reaches it. w
// becomes its ReadyFD.
func startDetached(o SpawnOptions, w *os.File, command func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := command()
	cmd.Args = append(cmd.Args, o.Args(ReadyFD)...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, cmd.Start()
}

// runtimeDirEnv names the per-user runtime directory the socket goes in.
const runtimeDirEnv = "XDG_RUNTIME_DIR"
