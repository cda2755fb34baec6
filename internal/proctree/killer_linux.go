//go:build linux

package proctree

import (
	"context"
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// killer signals processes through pidfds, which pin the exact process
// instance so a recycled pid is never hit, and waits for them by polling the
// pidfds, which turn readable when the process exits. It owns the pidfds it
// opens; close releases them.
type killer struct {
	prot      protected
	live      map[procKey]int  // pidfd per signalled process not yet seen exiting
	unpinned  map[procKey]bool // signalled via kill(2) because pidfds are unavailable
	signalled map[procKey]bool
	noPidfd   bool
}

// unpinnedPoll is how often the pidfd-less fallback (kernels before 5.3)
// re-checks /proc, since it has no exit event to wait on.
const unpinnedPoll = 10 * time.Millisecond

func newKiller(prot protected) *killer {
	return &killer{
		prot:      prot,
		live:      make(map[procKey]int),
		unpinned:  make(map[procKey]bool),
		signalled: make(map[procKey]bool),
	}
}

func (k *killer) close() {
	for key, fd := range k.live {
		unix.Close(fd)
		delete(k.live, key)
	}
}

// count is the number of distinct processes signalled so far.
func (k *killer) count() int { return len(k.signalled) }

// pending reports whether any signalled process has not been seen exiting.
func (k *killer) pending() bool { return len(k.live) > 0 || len(k.unpinned) > 0 }

// signalRest signals every earlier-signalled process not in seen.
func (k *killer) signalRest(seen map[procKey]bool, sig unix.Signal) {
	for key, fd := range k.live {
		if !seen[key] {
			_ = unix.PidfdSendSignal(fd, sig, nil, 0)
		}
	}
	for key := range k.unpinned {
		if !seen[key] {
			k.signalProc(key, sig)
		}
	}
}

func (k *killer) signalProc(key procKey, sig unix.Signal) {
	if k.prot.pids[key.pid] || key.pid <= 1 {
		return
	}
	if fd, ok := k.live[key]; ok {
		if unix.PidfdSendSignal(fd, sig, nil, 0) == nil {
			k.signalled[key] = true
		}
		return
	}
	if !k.noPidfd {
		fd, err := unix.PidfdOpen(key.pid, 0)
		switch {
		case err == nil:
			// The pidfd pins whatever process holds the pid now; the start
			// time proves it is the one we found.
			if !sameLiveProc(key) {
				unix.Close(fd)
				return
			}
			k.live[key] = fd
			if unix.PidfdSendSignal(fd, sig, nil, 0) == nil {
				k.signalled[key] = true
			}
			return
		case errors.Is(err, unix.ENOSYS):
			k.noPidfd = true
		default:
			return // ESRCH: already gone; EMFILE: the next round retries
		}
	}
	if !sameLiveProc(key) {
		delete(k.unpinned, key)
		return
	}
	k.unpinned[key] = true
	if unix.Kill(key.pid, sig) == nil {
		k.signalled[key] = true
	}
}

// sameLiveProc reports whether key's process still exists and has not exited.
func sameLiveProc(key procKey) bool {
	st, err := readStat(key.pid)
	return err == nil && st.StartTime == key.start && !st.dead()
}

// wait blocks until every signalled process has exited, d has passed, or
// ctx is done, whichever is first.
func (k *killer) wait(ctx context.Context, d time.Duration) {
	if !k.pending() || d <= 0 {
		return
	}
	deadline := time.Now().Add(d)
	cancelFd := -1
	if ctx.Done() != nil {
		if ctx.Err() != nil {
			return
		}
		efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
		if err == nil {
			cancelFd = efd
			fired := make(chan struct{})
			stop := context.AfterFunc(ctx, func() {
				defer close(fired)
				one := [8]byte{1}
				_, _ = unix.Write(efd, one[:])
			})
			defer func() {
				if !stop() {
					<-fired // the write must finish before the fd is closed
				}
				unix.Close(efd)
			}()
		}
	}
	var keys []procKey
	var fds []unix.PollFd
	for k.pending() {
		k.dropExitedUnpinned()
		rem := time.Until(deadline)
		if rem <= 0 || ctx.Err() != nil || !k.pending() {
			return
		}
		if len(k.unpinned) > 0 {
			rem = min(rem, unpinnedPoll)
		}
		keys, fds = keys[:0], fds[:0]
		for key, fd := range k.live {
			keys = append(keys, key)
			fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
		}
		if cancelFd >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(cancelFd), Events: unix.POLLIN})
		}
		ms := int((rem + time.Millisecond - 1) / time.Millisecond)
		n, err := unix.Poll(fds, ms)
		if errors.Is(err, unix.EINTR) || n == 0 {
			continue
		}
		if err != nil {
			return
		}
		for i, key := range keys {
			if fds[i].Revents != 0 {
				unix.Close(k.live[key])
				delete(k.live, key)
			}
		}
		if cancelFd >= 0 && fds[len(keys)].Revents != 0 {
			return
		}
	}
}

func (k *killer) dropExitedUnpinned() {
	for key := range k.unpinned {
		if !sameLiveProc(key) {
			delete(k.unpinned, key)
		}
	}
}

// afterKill waits for what a SIGKILL round signalled: pinned processes
// until they exit (their pidfds say so), else a short pause before the
// next scan.
func (k *killer) afterKill(deadline time.Time) {
	if k.pending() {
		k.wait(context.Background(), time.Until(deadline))
	} else {
		pause(min(retryPause, time.Until(deadline)))
	}
}

// rootGroup is root's process group, 0 when root is gone.
func rootGroup(root int) int {
	if st, err := readStat(root); err == nil {
		return st.PGID
	}
	return 0
}
