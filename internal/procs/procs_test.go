package procs

import (
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// recorder is a fake GOMAXPROCS: it keeps every setting made, in order,
// and signals each one.
type recorder struct {
	mu   sync.Mutex
	sets []int
	ch   chan int
}

func newRecorder() *recorder { return &recorder{ch: make(chan int, 1024)} }

func (r *recorder) set(n int) {
	r.mu.Lock()
	r.sets = append(r.sets, n)
	r.mu.Unlock()
	r.ch <- n
}

func (r *recorder) all() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sets)
}

// next waits for the next setting.
func (r *recorder) next(t *testing.T) int {
	t.Helper()
	select {
	case n := <-r.ch:
		return n
	case <-time.After(10 * time.Second):
		t.Fatalf("no GOMAXPROCS change within 10 s; so far %v", r.all())
		return -1
	}
}

func TestController_BusyRaisesQuietLowers(t *testing.T) {
	r := newRecorder()
	c := &controller{set: r.set, hold: 20 * time.Millisecond}
	c.busy() // not enabled: nothing
	disable := c.enable()
	if n := r.next(t); n != 1 {
		t.Fatalf("enable set %d, want 1", n)
	}
	c.busy()
	if n := r.next(t); n != 0 {
		t.Fatalf("busy set %d, want 0 (the runtime's default)", n)
	}
	// Busy within each hold keeps it raised: no setting until they stop.
	stop := time.Now().Add(5 * c.hold)
	for time.Now().Before(stop) {
		c.busy()
		select {
		case n := <-r.ch:
			t.Fatalf("set %d while busy came every few ms", n)
		case <-time.After(c.hold / 4):
		}
	}
	if n := r.next(t); n != 1 {
		t.Fatalf("after busy stopped set %d, want 1", n)
	}
	c.busy()
	if n := r.next(t); n != 0 {
		t.Fatalf("busy again set %d, want 0", n)
	}
	disable()
	disable()
	if n := r.next(t); n != 0 {
		t.Fatalf("disable set %d, want 0", n)
	}
	c.busy()
	time.Sleep(3 * c.hold) // nothing may happen: there is no event to wait on
	if got, want := r.all(), []int{1, 0, 1, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("settings %v, want %v", got, want)
	}
}

// TestController_ConcurrentBusy: Busy from many goroutines while the
// holds run out, 50 rounds: settings alternate (never two raises or two
// lowers in a row), and once Busy stops the process ends on one CPU.
func TestController_ConcurrentBusy(t *testing.T) {
	for round := range 50 {
		r := newRecorder()
		c := &controller{set: r.set, hold: time.Millisecond}
		disable := c.enable()
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 200 {
					c.busy()
					if (i+g)%50 == 0 {
						time.Sleep(2 * time.Millisecond) // let a hold run out now and then
					}
				}
			})
		}
		wg.Wait()
		for c.high.Load() {
			r.next(t) // the lowering is on its way
		}
		got := r.all()
		for i := 1; i < len(got); i++ {
			if got[i] == got[i-1] {
				t.Fatalf("round %d: settings %v repeat at %d", round, got, i)
			}
		}
		if got[0] != 1 || got[len(got)-1] != 1 {
			t.Fatalf("round %d: settings %v, want them to start and end at 1", round, got)
		}
		disable()
	}
}

// TestEnable_RespectsEnvironment: GOMAXPROCS in the environment leaves the
// scheduler alone.
func TestEnable_RespectsEnvironment(t *testing.T) {
	t.Setenv("GOMAXPROCS", "3")
	before := runtime.GOMAXPROCS(0)
	disable := Enable()
	Busy()
	disable()
	if std.on.Load() || runtime.GOMAXPROCS(0) != before {
		t.Errorf("with GOMAXPROCS=%s set: enabled %v, GOMAXPROCS %d (was %d)", os.Getenv("GOMAXPROCS"), std.on.Load(), runtime.GOMAXPROCS(0), before)
	}
}
