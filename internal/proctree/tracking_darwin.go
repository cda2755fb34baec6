//go:build darwin

package proctree

import (
	"errors"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// trackEvery is the clock under macOS's trackers: kqueue says when a
// member forks or exits, so the clock only catches what that misses (a
// member that could not be watched).
const trackEvery = time.Second

var scans = newScanLoop(trackEvery, listProcs, newKqueueWaker)

// wakeIdent is the EVFILT_USER event that wake triggers.
const wakeIdent = 1

// kqueueWaker watches members with one kqueue: EVFILT_PROC with NOTE_FORK
// and NOTE_EXIT on each, so a fork or an exit rescans at once (the kernel
// no longer says which child: NOTE_TRACK is gone). A pid that is already
// gone fails EV_ADD with ESRCH, which counts as its exit.
type kqueueWaker struct {
	kq      int
	watched map[procKey]bool // the loop goroutine's alone
	once    sync.Once
}

func newKqueueWaker() (waker, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(kq)
	ev := []unix.Kevent_t{{Ident: wakeIdent, Filter: unix.EVFILT_USER, Flags: unix.EV_ADD | unix.EV_CLEAR}}
	if _, err := unix.Kevent(kq, ev, nil, nil); err != nil {
		unix.Close(kq)
		return nil, err
	}
	return &kqueueWaker{kq: kq, watched: map[procKey]bool{}}, nil
}

func (w *kqueueWaker) wait(members []Proc, d time.Duration) {
	now := make(map[procKey]bool, len(members))
	fired := false
	for _, m := range members {
		k := procKey{m.PID, m.StartTime}
		now[k] = true
		if w.watched[k] {
			continue
		}
		ev := []unix.Kevent_t{{Ident: uint64(m.PID), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_CLEAR,
			Fflags: unix.NOTE_FORK | unix.NOTE_EXIT}}
		if _, err := unix.Kevent(w.kq, ev, nil, nil); errors.Is(err, unix.ESRCH) {
			fired = true // gone already: rescan now
			continue
		}
		w.watched[k] = true
	}
	// A member the tracker dropped has exited, and the kernel dropped its
	// event with it.
	for k := range w.watched {
		if !now[k] {
			delete(w.watched, k)
		}
	}
	if fired {
		return
	}
	ts := unix.NsecToTimespec(d.Nanoseconds())
	out := make([]unix.Kevent_t, 8)
	_, _ = unix.Kevent(w.kq, nil, out, &ts) // EINTR: a rescan early does no harm
}

func (w *kqueueWaker) wake() {
	ev := []unix.Kevent_t{{Ident: wakeIdent, Filter: unix.EVFILT_USER, Fflags: unix.NOTE_TRIGGER}}
	_, _ = unix.Kevent(w.kq, ev, nil, nil)
}

func (w *kqueueWaker) close() { w.once.Do(func() { unix.Close(w.kq) }) }
