package backend

// Waiting for every session's exits with one goroutine, as on Linux
// (exitwatch_linux.go): each job reports to one I/O completion port, whose
// packets say which member exited (JOB_OBJECT_MSG_EXIT_PROCESS) and when the
// job is empty (JOB_OBJECT_MSG_ACTIVE_PROCESS_ZERO); one goroutine waits in
// GetQueuedCompletionStatus for them all. It runs only while some job is
// watched: the first watch makes the port and starts it, and when the last
// job is forgotten it is told to stop, and closes the port.
//
// Microsoft documents that job messages "are intended only as
// notifications and their delivery to the completion port is not
// guaranteed". So the wait has a timeout, and each time it expires the
// goroutine asks the kernel directly (the root's process handle is
// signalled once it exited; the job counts its active processes) and feeds
// the answer to the table as if the message had come. A lost message then
// costs at most backstopMs of delay, never a hang.

import (
	"fmt"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// backstopMs is how long the watcher trusts the port before asking the
// kernel itself.
const backstopMs = 1000

// stopKey is the completion key that tells the goroutine to end; jobs'
// keys start at 1.
const stopKey = 0

type watchedJob struct {
	job, proc windows.Handle // not owned: the process closes them after forget
}

// jobWatcher calls back when watched jobs' roots exit and when they empty.
type jobWatcher struct {
	mu      sync.Mutex
	port    windows.Handle // 0 when no goroutine runs; guarded by mu
	table   *jobTable      // guarded by mu
	handles map[uintptr]watchedJob
	next    uintptr
}

// jobs watches every local session's job.
var jobs = &jobWatcher{table: newJobTable(), handles: map[uintptr]watchedJob{}}

// watch sends job's messages to the watcher, before the root (pid, proc)
// is assigned to it, so no message is missed. onEmpty is called, from the
// watcher's goroutine, once the job has no process left; it must not
// block. It returns the key that names the job here.
func (w *jobWatcher) watch(job, proc windows.Handle, pid uint32, onEmpty func()) (uintptr, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.port == 0 {
		port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 1)
		if err != nil {
			return 0, fmt.Errorf("%w: completion port: %v", ErrNoExitWatch, err)
		}
		w.port = port
		go w.run(port)
	}
	w.next++
	key := w.next
	if err := associate(job, w.port, key); err != nil {
		w.stopIfIdleLocked()
		return 0, err
	}
	w.table.add(key, pid, onEmpty)
	w.handles[key] = watchedJob{job: job, proc: proc}
	return key, nil
}

// onExit calls f once the root of key has exited; f must not block.
func (w *jobWatcher) onExit(key uintptr, f func()) {
	w.mu.Lock()
	due := w.table.onExit(key, f)
	w.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// forget stops watching key; the caller may then close its handles.
func (w *jobWatcher) forget(key uintptr) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.table.remove(key)
	delete(w.handles, key)
	w.stopIfIdleLocked()
}

// stopIfIdleLocked tells the goroutine to end when nothing is watched;
// the goroutine closes its port, and the next watch makes a new one.
func (w *jobWatcher) stopIfIdleLocked() {
	if w.table.len() > 0 || w.port == 0 {
		return
	}
	if err := windows.PostQueuedCompletionStatus(w.port, 0, stopKey, nil); err != nil {
		return // the goroutine keeps the port; the next watch uses it
	}
	w.port = 0
}

// run delivers the port's packets until told to stop.
func (w *jobWatcher) run(port windows.Handle) {
	defer windows.CloseHandle(port)
	for {
		var msg uint32
		var key uintptr
		// The "overlapped" pointer of a job message is a process id: it
		// is received into an integer, so the collector never sees it.
		var pid uintptr
		err := windows.GetQueuedCompletionStatus(port, &msg, &key, (**windows.Overlapped)(unsafe.Pointer(&pid)), backstopMs)
		if err == nil && key == stopKey {
			return
		}
		if err != nil && err != windows.WAIT_TIMEOUT {
			// The port is this goroutine's alone, so this does not
			// happen; were it to, the kernel is still asked at the
			// backstop's pace rather than in a spin.
			time.Sleep(backstopMs * time.Millisecond)
		}
		var due []func()
		w.mu.Lock()
		if err == nil {
			due = w.table.message(key, msg, uint32(pid))
		} else {
			due = w.backstopLocked()
		}
		w.mu.Unlock()
		for _, f := range due {
			f()
		}
	}
}

// backstopLocked asks the kernel what the port may have failed to say.
func (w *jobWatcher) backstopLocked() (due []func()) {
	for key, h := range w.handles {
		j := w.table.jobs[key]
		if !j.rootGone {
			if ev, err := windows.WaitForSingleObject(h.proc, 0); err == nil && ev == windows.WAIT_OBJECT_0 {
				due = append(due, w.table.message(key, jobMsgExitProcess, j.root)...)
			}
		}
		// Only once the root is gone: before it is assigned, the job is
		// empty without having emptied.
		if j.rootGone && !j.empty {
			if n, err := activeProcesses(h.job); err == nil && n == 0 {
				due = append(due, w.table.message(key, jobMsgActiveProcessZero, 0)...)
			}
		}
	}
	return due
}
