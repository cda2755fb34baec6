//go:build darwin

package proctree

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// guardAttr: its own process group, so signals aimed at agentty's group do
// not reach it. macOS has no parent-death signal: watchParent stands in.
func guardAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// watchParent is the guard's parent-death signal on macOS: a kqueue with
// EVFILT_PROC NOTE_EXIT on agentty's pid, waited on by a goroutine that
// sweeps and exits the process when agentty has exited. A parent already
// gone (ESRCH at EV_ADD, or no longer our parent: its pid may be another
// process's) sweeps at once. Stdin's end of file still counts too.
func watchParent(finish func() int) {
	want, err := strconv.Atoi(os.Getenv(guardParentEnv))
	if err != nil || want <= 1 {
		fmt.Fprintf(os.Stderr, "proctree: guard: %s=%q: no parent to watch\n", guardParentEnv, os.Getenv(guardParentEnv))
		os.Exit(finish())
	}
	kq, err := unix.Kqueue()
	if err != nil {
		return // out of descriptors: stdin's end of file alone tells
	}
	ev := []unix.Kevent_t{{Ident: uint64(want), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}}
	_, err = unix.Kevent(kq, ev, nil, nil)
	// Only once the event is in does a later exit of want reach us: if our
	// parent is no longer want, want may be another process.
	if errors.Is(err, unix.ESRCH) || os.Getppid() != want {
		os.Exit(finish())
	}
	if err != nil {
		unix.Close(kq)
		return
	}
	go func() {
		// Exits the process, which is how this goroutine stops.
		out := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, out, nil)
			if n > 0 || (err != nil && !errors.Is(err, unix.EINTR)) {
				break
			}
		}
		os.Exit(finish())
	}()
}
