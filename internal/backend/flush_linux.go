package backend

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// FlushInput makes the terminal take in every byte written to the master
// so far. A write to a PTY master only queues its bytes for a kernel
// worker that hands them to the slave's line discipline later, possibly in
// pieces. poll on the slave, when no input is available yet, waits for
// that hand-over (n_tty_poll flushes the pending buffer work); when some
// is, nothing is asleep on the terminal that this input could be for. The
// slave is opened through the master (TIOCGPTPEER: no path lookup, never a
// controlling terminal) and closed at once; the program's own open keeps
// the terminal up meanwhile.
//
// So once it returns, no reader is asleep on the terminal while input
// written before the call is still on its way to it.
func (p *ptyProcess) FlushInput() error {
	var err error
	cerr := p.rc.Control(func(fd uintptr) { err = flushSlave(int(fd)) })
	if cerr != nil {
		return cerr
	}
	return err
}

func flushSlave(master int) error {
	r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(master), unix.TIOCGPTPEER,
		uintptr(unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC))
	if e != 0 {
		return fmt.Errorf("open pty slave: %w", e)
	}
	slave := int(r)
	defer unix.Close(slave)
	fds := []unix.PollFd{{Fd: int32(slave), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("poll pty slave: %w", err)
		}
		return nil
	}
}
