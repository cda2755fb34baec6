package proctree

import (
	"runtime"
	"sync"
)

// Spawner runs process starts on one locked OS thread that lives as long as
// agentty. PR_SET_PDEATHSIG fires when the *thread* that forked the child
// exits, not the process (golang/go#27505), and the Go runtime destroys
// threads, so children started from arbitrary goroutines could be killed
// early. Starting every child from this thread binds Pdeathsig to agentty's
// lifetime.
type Spawner struct {
	calls     chan spawnCall
	quit      chan struct{}
	exited    chan struct{}
	closeOnce sync.Once
	kick      chan struct{} // buffered 1: run the deferred job now (Kick)
	mu        sync.Mutex
	deferred  *spawnCall // guarded by mu; Defer's job, until the thread takes it
}

type spawnCall struct {
	fn   func()
	done chan any // receives the recovered panic, or nil
}

// NewSpawner starts the spawner's thread.
func NewSpawner() *Spawner {
	s := &Spawner{
		calls:  make(chan spawnCall),
		quit:   make(chan struct{}),
		exited: make(chan struct{}),
		kick:   make(chan struct{}, 1),
	}
	go s.loop()
	return s
}

func (s *Spawner) loop() {
	runtime.LockOSThread()
	defer close(s.exited)
	// Unlocking (instead of exiting while locked, which destroys the thread)
	// hands the thread back to the scheduler alive, so Close does not fire
	// Pdeathsig on children that are still running.
	defer runtime.UnlockOSThread()
	for {
		select {
		case c := <-s.calls:
			s.runDeferred()
			c.done <- run(c.fn)
		case <-s.kick:
			s.runDeferred()
		case <-s.quit:
			// A deferred job no call needed never runs; its waiter learns.
			if d := s.takeDeferred(); d != nil {
				d.done <- nil
			}
			return
		}
	}
}

func (s *Spawner) takeDeferred() *spawnCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.deferred
	s.deferred = nil
	return d
}

func (s *Spawner) runDeferred() {
	if d := s.takeDeferred(); d != nil {
		d.done <- run(d.fn)
	}
}

// run calls fn and returns its panic value, so a panicking start surfaces in
// the caller of Do instead of killing the spawner thread's goroutine.
func run(fn func()) (p any) {
	defer func() { p = recover() }()
	fn()
	return nil
}

// Do runs fn on the spawner thread and returns when fn returns; a panic in
// fn is re-raised in the caller. Calls are serialised, and fn must not call
// Do itself (it would wait for its own thread). After Close, fn runs on the caller's
// goroutine: during shutdown binding Pdeathsig to a specific thread no longer
// matters.
func (s *Spawner) Do(fn func()) {
	c := spawnCall{fn: fn, done: make(chan any, 1)}
	select {
	case s.calls <- c:
		if p := <-c.done; p != nil {
			panic(p)
		}
	case <-s.quit:
		fn()
	}
}

// Begin hands fn to the spawner thread and returns once the thread has
// taken it, without waiting for fn to finish: every later Do runs after fn
// has returned. The channel receives fn's panic value, or nil, when fn is
// done. After Close, fn runs on the caller's goroutine before Begin returns.
func (s *Spawner) Begin(fn func()) <-chan any {
	c := spawnCall{fn: fn, done: make(chan any, 1)}
	select {
	case s.calls <- c:
	case <-s.quit:
		c.done <- run(fn)
	}
	return c.done
}

// Defer is Begin for a job that may wait: fn runs on the spawner thread
// before the next job handed to it by Do or Begin, or at Kick, whichever
// comes first; it returns at once. If the spawner closes before either,
// fn never runs and the channel receives nil. One deferred job at a time:
// a second Defer before the first ran panics (a programming error).
func (s *Spawner) Defer(fn func()) <-chan any {
	c := &spawnCall{fn: fn, done: make(chan any, 1)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deferred != nil {
		panic("proctree: Defer while a deferred job waits")
	}
	s.deferred = c
	return c.done
}

// Kick runs the deferred job now (on the spawner thread, without waiting
// for it); without one it does nothing.
func (s *Spawner) Kick() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Close stops the spawner and waits for its goroutine to end. It is safe to
// call more than once.
func (s *Spawner) Close() {
	s.closeOnce.Do(func() { close(s.quit) })
	<-s.exited
}
