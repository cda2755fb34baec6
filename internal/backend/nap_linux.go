package backend

import (
	"time"

	"golang.org/x/sys/unix"
)

// Nap sleeps for d, under a millisecond, or until the program's output is
// ready to read; woke says it was the output. The wait loop sleeps
// sub-millisecond pauses with the kernel's precision (the runtime's timers
// round them up to a millisecond when the process is otherwise idle); a
// plain sleep would see output that arrives meanwhile only when it ends.
// The pump then appends the output (the log's Changed fires): a caller
// waits for that, not for the descriptor, which stays readable until the
// pump has read it.
func (p *ptyProcess) Nap(d time.Duration) bool { return napOn(d, p.pump) }

// Nap is ptyProcess.Nap on the output pipes.
func (p *pipeProcess) Nap(d time.Duration) bool { return napOn(d, p.pumps...) }

// napOn polls the pumps' descriptors, each held open for the poll by its
// RawConn (a pump closed meanwhile ends the poll at once).
func napOn(d time.Duration, ps ...*pump) bool {
	fds := make([]unix.PollFd, 0, len(ps))
	var hold func(i int) bool
	hold = func(i int) (woke bool) {
		if i == len(ps) {
			// The thread's timer slack goes to 1 ns, as for the session's
			// plain nap: the default 50 µs would stretch a 100 µs pause.
			_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
			ts := unix.NsecToTimespec(d.Nanoseconds())
			n, err := unix.Ppoll(fds, &ts, nil)
			return err == nil && n > 0
		}
		if err := ps[i].rc.Control(func(fd uintptr) {
			fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
			woke = hold(i + 1)
		}); err != nil {
			return true // closed: whatever ends the wait is already there
		}
		return woke
	}
	return hold(0)
}
