package bench

import "golang.org/x/sys/unix"

// stopDaemon ends the bench's daemon (SIGTERM: it ends its sessions and
// exits) and waits until it is gone, at most 30 s.
func stopDaemon(pid int) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0) != nil {
		return
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, 30000); err != unix.EINTR {
			return
		}
	}
}
