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
func nap(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
