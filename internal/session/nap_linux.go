package session

import (
	"time"

	"golang.org/x/sys/unix"
)

// nap sleeps for d, which is under napMax, with the kernel's precision.
// The Go runtime rounds timers shorter than a millisecond up to its
// poller's millisecond timeout when the process is otherwise idle, which
// would add about a millisecond to every verdict the wait loop takes a
// short pause before; nanosleep blocks only this goroutine's thread.
//
// The thread's timer slack goes to 1 ns first: the default 50 µs slack
// made a 100 µs nap last ≈ 175 µs, and every look after input waits out
// one or two naps. The setting stays with the thread (it only makes that
// thread's timed sleeps exact); setting it each time is one cheap syscall,
// and the goroutine may be on another thread next time.
func nap(d time.Duration) {
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
