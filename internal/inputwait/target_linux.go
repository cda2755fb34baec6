//go:build linux && (amd64 || arm64)

package inputwait

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// ptsMajor is the device major of Unix98 PTY slaves (/dev/pts/N); the minor
// is the pts number, which can exceed 255 within the same major.
const ptsMajor = 136

// devTTY is /dev/tty (5,0): the "controlling terminal" alias ssh and sudo
// open to read passwords.
var devTTY = unix.Mkdev(5, 0)

// withFd runs fn on f's descriptor without f.Fd(), which would put the
// descriptor into blocking mode and break deadlines on the caller's reads.
func withFd(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		// Control fails only once the file is closing, and reports it as
		// an internal poll error that errors.Is cannot match.
		return fmt.Errorf("%w: %v", os.ErrClosed, err)
	}
	return ferr
}

// ptyView is what the PTY master tells about its slave.
type ptyView struct {
	pgid int    // foreground process group; 0 if none
	tty  uint64 // slave device number, derived if the caller left it 0
}

// queryPTY reads the slave's foreground group through the master: on
// Linux the job-control ioctls on a master act on the slave. The modes are
// read later, once the group was seen blocked (see Inspect).
func queryPTY(master *os.File, tty uint64) (ptyView, error) {
	v := ptyView{tty: tty}
	err := withFd(master, func(fd int) error {
		pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		if err != nil {
			return fmt.Errorf("TIOCGPGRP: %w", err)
		}
		v.pgid = pg
		if v.tty == 0 {
			n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
			if err != nil {
				return fmt.Errorf("TIOCGPTN: %w", err)
			}
			v.tty = unix.Mkdev(ptsMajor, n)
		}
		return nil
	})
	if err != nil {
		return v, fmt.Errorf("inputwait: query pty master: %w", err)
	}
	return v, nil
}

// PTYTermios reads the slave's line discipline settings through the master
// (on Linux, TCGETS on a master acts on its slave).
func PTYTermios(master *os.File) (unix.Termios, error) {
	var tio unix.Termios
	err := withFd(master, func(fd int) error {
		t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err != nil {
			return fmt.Errorf("inputwait: TCGETS: %w", err)
		}
		tio = *t
		return nil
	})
	return tio, err
}

// pipeIdentity returns the pipefs device and inode of agentty's end of the
// stdin pipe; the child's read end has the same pair.
func pipeIdentity(f *os.File) (dev, ino uint64, err error) {
	var st unix.Stat_t
	err = withFd(f, func(fd int) error { return unix.Fstat(fd, &st) })
	if err != nil {
		return 0, 0, fmt.Errorf("inputwait: stat stdin pipe: %w", err)
	}
	return st.Dev, st.Ino, nil
}

// pendingInput returns how many bytes sit in the stdin pipe unread.
// FIONREAD (spelled TIOCINQ in x/sys) works on either end of a pipe.
func pendingInput(f *os.File) (int, error) {
	var n int
	err := withFd(f, func(fd int) error {
		var err error
		n, err = unix.IoctlGetInt(fd, unix.TIOCINQ) // FIONREAD
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("inputwait: FIONREAD on stdin pipe: %w", err)
	}
	return n, nil
}

// pipefsDev is the device number all anonymous pipes share; it tells an
// anonymous pipe (a pipeline stage) from a named FIFO (some other input).
var pipefsDev = sync.OnceValue(func() uint64 {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return ^uint64(0)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	var st unix.Stat_t
	if err := unix.Fstat(p[0], &st); err != nil {
		return ^uint64(0)
	}
	return st.Dev
})
