package backend

// Waiting for many exits with one goroutine (exitwatch_linux.go's reasons):
// one kqueue holds an EVFILT_PROC NOTE_EXIT event per watched root, and
// one goroutine waits on it while anything is watched; it closes the
// kqueue and ends when the last watched root has exited. A root that has
// exited already (a zombie) fails EV_ADD with ESRCH, which counts as its
// exit. The process is not reaped here (Wait does that), so its pid
// cannot be recycled meanwhile.

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// wakeExits is the EVFILT_USER event that makes the goroutine look at the
// watched set again.
const wakeExits = 0

// exitWatcher calls back when watched processes exit.
type exitWatcher struct {
	mu      sync.Mutex
	kq      int            // guarded by mu; the running goroutine's, -1 when none runs
	watched map[int]func() // guarded by mu
	gone    []int          // guarded by mu: watched pids that had exited before their add
}

// exits watches every local root of this process.
var exits = &exitWatcher{kq: -1, watched: map[int]func(){}}

// watch calls f once, from the watcher's goroutine, when pid has exited;
// f must not block. pid must be an unreaped child of this process.
func (w *exitWatcher) watch(pid int, f func()) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.kq < 0 {
		kq, err := unix.Kqueue()
		if err != nil {
			return fmt.Errorf("%w: kqueue: %v", ErrNoExitWatch, err)
		}
		unix.CloseOnExec(kq)
		ev := []unix.Kevent_t{{Ident: wakeExits, Filter: unix.EVFILT_USER, Flags: unix.EV_ADD | unix.EV_CLEAR}}
		if _, err := unix.Kevent(kq, ev, nil, nil); err != nil {
			unix.Close(kq)
			return fmt.Errorf("%w: kqueue: %v", ErrNoExitWatch, err)
		}
		w.kq = kq
		go w.run(kq)
	}
	w.watched[pid] = f
	ev := []unix.Kevent_t{{Ident: uint64(pid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}}
	_, err := unix.Kevent(w.kq, ev, nil, nil)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ESRCH):
		// Exited before the add: hand it to the goroutine as if noted.
		ev := []unix.Kevent_t{{Ident: wakeExits, Filter: unix.EVFILT_USER, Fflags: unix.NOTE_TRIGGER}}
		w.gone = append(w.gone, pid)
		_, _ = unix.Kevent(w.kq, ev, nil, nil)
		return nil
	}
	delete(w.watched, pid)
	return fmt.Errorf("%w: kevent of %d: %v", ErrNoExitWatch, pid, err)
}

func (w *exitWatcher) run(kq int) {
	evs := make([]unix.Kevent_t, 32)
	for {
		n, err := unix.Kevent(kq, nil, evs, nil)
		if err != nil && !errors.Is(err, unix.EINTR) {
			n = 0 // cannot happen with a valid kqueue; the set is re-checked below
		}
		w.mu.Lock()
		var due []func()
		take := func(pid int) {
			if f, ok := w.watched[pid]; ok {
				delete(w.watched, pid)
				due = append(due, f)
			}
		}
		for _, ev := range evs[:max(n, 0)] {
			if ev.Filter == unix.EVFILT_PROC {
				take(int(ev.Ident))
			}
		}
		for _, pid := range w.gone {
			take(pid)
		}
		w.gone = nil
		last := len(w.watched) == 0
		if last {
			unix.Close(kq)
			w.kq = -1
		}
		w.mu.Unlock()
		for _, f := range due {
			f()
		}
		if last {
			return
		}
	}
}
