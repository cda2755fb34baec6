//go:build linux

package proctree

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/platform"
)

// guardAttr: its own process group (signals aimed at agentty's group do
// not reach it) and, unless the guard watches agentty's pid itself
// (platform Guard), SIGTERM when agentty dies.
func guardAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	if !platform.Current().Guard {
		a.Pdeathsig = syscall.SIGTERM
	}
	return a
}

// watchParent is the guard's parent-death signal where none is set (macOS's
// way, AGENTTY_PORTABLE=guard): a pidfd of agentty, polled on a goroutine
// that sweeps and exits the process when agentty has exited. A parent
// already gone, or one that cannot be watched, sweeps at once: the guard
// must not outlive it unarmed. Stdin's end of file still counts too.
func watchParent(finish func() int) {
	want, err := strconv.Atoi(os.Getenv(guardParentEnv))
	if err != nil || want <= 1 {
		fmt.Fprintf(os.Stderr, "proctree: guard: %s=%q: no parent to watch\n", guardParentEnv, os.Getenv(guardParentEnv))
		os.Exit(finish())
	}
	fd, err := unix.PidfdOpen(want, 0)
	if errors.Is(err, unix.ENOSYS) {
		return // no pidfds (before 5.3): stdin's end of file alone tells
	}
	// Only now does the pidfd pin the pid: if our parent is no longer
	// want, the pid may be another process's.
	if err != nil || os.Getppid() != want {
		if err == nil {
			unix.Close(fd)
		}
		os.Exit(finish())
	}
	go func() {
		// Exits the process, which is how this goroutine stops.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(fds, -1)
			if err == nil && fds[0].Revents != 0 {
				break
			}
			if err != nil && !errors.Is(err, unix.EINTR) {
				break
			}
		}
		os.Exit(finish())
	}()
}
