package backend

// Waiting for many exits with one goroutine.
//
// A session used to keep a goroutine parked in Wait for its program's whole
// life: at a thousand idle sessions, a thousand goroutines, whose
// descriptors the Go runtime never frees. The watcher instead puts each
// root's pidfd (readable once the process has exited) in one epoll set,
// and that set's descriptor in the runtime's poller: one goroutine parks
// on all of them. It runs only while something is watched: the first
// watch starts it with a fresh epoll descriptor, and it closes that
// descriptor and ends once the last watched process has exited, so an idle
// server holds neither. The pidfd pins the process, so a recycled pid is
// never mistaken for it; the process is not reaped here (Wait does that).

import (
	"fmt"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// exitWatcher calls back when watched processes exit.
type exitWatcher struct {
	mu sync.Mutex
	// epfd is the epoll set of the running goroutine, -1 when none runs.
	// Guarded by mu, as is watched: the callback of each pidfd in it.
	epfd    int
	watched map[int32]func()
}

// exits watches every local root of this process.
var exits = &exitWatcher{epfd: -1, watched: map[int32]func(){}}

// watch calls f once, from the watcher's goroutine, when pid has exited
// (or, should the watcher fail, at once: Wait then blocks until the exit);
// f must not block. pid must be an unreaped child of this process.
func (w *exitWatcher) watch(pid int, f func()) error {
	pfd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return fmt.Errorf("%w: pidfd of %d: %v", ErrNoExitWatch, pid, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.epfd < 0 {
		if err := w.startLocked(); err != nil {
			unix.Close(pfd)
			return err
		}
	}
	// Level-triggered: an exit before the add is reported at once.
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(pfd)}
	if err := unix.EpollCtl(w.epfd, unix.EPOLL_CTL_ADD, pfd, &ev); err != nil {
		unix.Close(pfd)
		return fmt.Errorf("%w: add pidfd: %v", ErrNoExitWatch, err)
	}
	w.watched[int32(pfd)] = f
	return nil
}

// startLocked makes an epoll set and starts the goroutine that waits on it.
func (w *exitWatcher) startLocked() error {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("%w: epoll: %v", ErrNoExitWatch, err)
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return fmt.Errorf("%w: epoll: %v", ErrNoExitWatch, err)
	}
	// A non-blocking descriptor given to os.NewFile goes to the runtime's
	// poller; an epoll set is readable while any of its members is.
	f := os.NewFile(uintptr(epfd), "exitwatch")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return fmt.Errorf("%w: %v", ErrNoExitWatch, err)
	}
	w.epfd = epfd
	go w.run(f, rc, epfd)
	return nil
}

// run delivers exits until nothing is watched, then closes the set.
func (w *exitWatcher) run(f *os.File, rc syscall.RawConn, epfd int) {
	events := make([]unix.EpollEvent, 16)
	var due []func()
	for {
		due = due[:0]
		var werr error
		err := rc.Read(func(uintptr) bool {
			n, err := unix.EpollWait(epfd, events, 0)
			for err == unix.EINTR {
				n, err = unix.EpollWait(epfd, events, 0)
			}
			if err != nil {
				werr = err
				return true
			}
			if n == 0 {
				return false // park until the set is readable
			}
			w.mu.Lock()
			for _, ev := range events[:n] {
				if cb, ok := w.watched[ev.Fd]; ok {
					delete(w.watched, ev.Fd)
					_ = unix.EpollCtl(epfd, unix.EPOLL_CTL_DEL, int(ev.Fd), nil)
					unix.Close(int(ev.Fd))
					due = append(due, cb)
				}
			}
			w.mu.Unlock()
			return true
		})
		for _, cb := range due {
			cb()
		}
		w.mu.Lock()
		if err == nil && werr == nil && len(w.watched) > 0 {
			w.mu.Unlock()
			continue
		}
		// Nothing is left to watch, or the set failed (it cannot: the
		// descriptor is this goroutine's alone). What is still watched is
		// handed over now: its Wait blocks until the exit, as it would
		// without the watcher.
		due = due[:0]
		for pfd, cb := range w.watched {
			unix.Close(int(pfd))
			due = append(due, cb)
		}
		// A new map: a cleared one would keep the peak's buckets.
		w.watched = map[int32]func(){}
		// Closed before the set is marked gone, under mu: whoever sees no
		// watcher running finds its descriptor closed too.
		f.Close()
		w.epfd = -1
		w.mu.Unlock()
		for _, cb := range due {
			cb()
		}
		return
	}
}
