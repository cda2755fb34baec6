//go:build linux || darwin

package proctree

import "time"

// killWait bounds how long Terminate keeps re-scanning and SIGKILLing after
// the grace period; SIGKILL cannot be caught, so only uninterruptible sleep
// (D state) or a fork race can make it last this long.
const killWait = 5 * time.Second

// retryPause spaces out kill rounds when nothing could be pinned to wait on,
// so a process that keeps reappearing does not turn the loop into a spin.
const retryPause = 10 * time.Millisecond

func pause(d time.Duration) {
	if d > 0 {
		t := time.NewTimer(d)
		<-t.C
	}
}
