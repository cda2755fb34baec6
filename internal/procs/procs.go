// Package procs sizes the Go scheduler to the server's work: Go code runs
// on one CPU (GOMAXPROCS 1) while the server answers calls and waits on
// its programs, and on every CPU the runtime would use while there is bulk
// work: a program's output flooding in, the transcript queue filling up,
// calls arriving while others run.
//
// Why one CPU when the work is light: an interactive round trip hands work
// from goroutine to goroutine half a dozen times (the stdin reader, the
// SDK's dispatch, the handler, the output pump), and with a second
// scheduler slot idle each hand-off wakes another thread, on another CPU,
// to take it. On the 2-CPU test machine that is about 80 µs of a 0.6 ms
// send_input round trip to python (docs/benchmarks.md). Why every CPU when
// it is heavy: on one, the disk writer of a 200 MB pipe flood fell behind
// and the store dropped 2 MB of it, and a PTY flood rendered into its
// screen ran at 90 % of a bare PTY instead of 100 %. A goroutine blocked
// in a system call hands its slot on, so waiting never needs a second one.
//
// The setting is the whole process's, so only the serve and daemon
// commands turn it on (Enable); servers built inside tests leave the
// scheduler alone. GOMAXPROCS set in the environment is respected: Enable
// then does nothing.
package procs

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Hold is how long after the last Busy the process stays on every CPU.
const Hold = time.Second

// controller is the state behind Enable and Busy. Busy's path while the
// process is on every CPU is two atomic loads.
type controller struct {
	set  func(n int) // sets GOMAXPROCS to n; 0 means the runtime's default
	hold time.Duration

	on      atomic.Bool // enabled and not disabled since
	high    atomic.Bool // on every CPU
	touched atomic.Bool // Busy since look last ran

	mu    sync.Mutex  // serialises enable, raise, look and disable
	timer *time.Timer // guarded by mu; runs look while high
}

var std = &controller{set: setRuntime, hold: Hold}

func setRuntime(n int) {
	if n == 0 {
		// The runtime's own choice (CPUs, affinity, cgroup quota), with
		// its automatic updates back on.
		runtime.SetDefaultGOMAXPROCS()
		return
	}
	runtime.GOMAXPROCS(n)
}

// Enable puts the process on one CPU until Busy, and returns what undoes
// it: the runtime's default again, and Busy without effect (idempotent).
// It does nothing when GOMAXPROCS is set in the environment or the
// runtime's default is one CPU anyway, and when already enabled.
func Enable() (disable func()) {
	if os.Getenv("GOMAXPROCS") != "" || runtime.GOMAXPROCS(0) <= 1 {
		return func() {}
	}
	return std.enable()
}

// Busy says bulk work is under way: Go code runs on every CPU from now
// until Hold has passed without another Busy. Callers call it as the work
// shows (each large read of output), so it is cheap when already raised.
func Busy() { std.busy() }

func (c *controller) enable() func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on.Load() {
		return func() {}
	}
	c.set(1)
	c.high.Store(false)
	c.on.Store(true)
	return sync.OnceFunc(c.disable)
}

func (c *controller) disable() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on.Store(false)
	c.high.Store(false)
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.set(0)
}

func (c *controller) busy() {
	if c.high.Load() {
		// A store only when it changes: Busy comes on every large read,
		// from several goroutines.
		if !c.touched.Load() {
			c.touched.Store(true)
		}
		return
	}
	if c.on.Load() {
		c.raise()
	}
}

func (c *controller) raise() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on.Load() || c.high.Load() {
		return
	}
	c.set(0)
	c.touched.Store(false)
	c.high.Store(true)
	c.timer = time.AfterFunc(c.hold, c.look)
}

// look runs a hold after raising and every hold after that while Busy
// keeps coming; once a whole hold passed without one it lowers. A Busy
// racing with the lowering finds the process on one CPU the next time
// and raises it again.
func (c *controller) look() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on.Load() || !c.high.Load() {
		return
	}
	if c.touched.Swap(false) {
		c.timer.Reset(c.hold)
		return
	}
	c.high.Store(false)
	c.timer = nil
	c.set(1)
}
