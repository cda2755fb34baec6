package backend

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// A program that floods its output pipe fills the kernel's default 64 KiB
// in well under a millisecond, then sleeps in write until the pump has
// read; with the store on, the pump's process also writes every byte to
// disk, and on a small machine each of those CPU-time slices leaves the
// program asleep. A pipe of bigPipeSize lets the program run on through
// them: measured on 2 CPUs, a 200 MB flood with the store on took 0.21 s
// instead of 0.28 s, the same as with the store off.
//
// Pipe capacity is charged to the user (fs/pipe-user-pages-soft, 64 MiB
// by default): past that limit every new pipe of the user gets 8 KiB. So
// only pipes that flood grow (a read that filled the pump's buffer), and
// at most maxBigPipes at once: 16 MiB, a quarter of the default limit.
const (
	// bigPipeSize is the default fs/pipe-max-size, the most an
	// unprivileged process may set.
	bigPipeSize = 1 << 20
	maxBigPipes = 16
)

// bigPipes counts the output pipes grown to bigPipeSize whose pump still
// runs; at most maxBigPipes.
var bigPipes atomic.Int32

// growPipe gives the pipe fd bigPipeSize when the budget allows. It
// reports whether the pipe grew (the caller then owns one unit of the
// budget, given back by shrinkDone) and whether trying again later could
// help: not after the kernel refused (a user over its limits, or
// fs/pipe-max-size lowered).
func growPipe(fd uintptr) (grew, retry bool) {
	if bigPipes.Add(1) > maxBigPipes {
		bigPipes.Add(-1)
		return false, true
	}
	if _, err := unix.FcntlInt(fd, unix.F_SETPIPE_SZ, bigPipeSize); err != nil {
		bigPipes.Add(-1)
		return false, false
	}
	return true, false
}

// shrinkDone gives back the budget unit of a grown pipe whose pump ended.
// The capacity itself goes with the pipe, which the Process closes.
func shrinkDone() { bigPipes.Add(-1) }
