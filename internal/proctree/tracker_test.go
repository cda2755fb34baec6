package proctree

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// p is a process of a snapshot: pid, parent pid, start time.
func p(pid, ppid int, start uint64) Proc { return Proc{PID: pid, PPID: ppid, StartTime: start} }

// keys renders procs as "pid@start", sorted, for comparison.
func keys(procs []Proc) []string {
	out := make([]string, 0, len(procs))
	for _, q := range procs {
		out = append(out, fmt.Sprintf("%d@%d", q.PID, q.StartTime))
	}
	slices.Sort(out)
	return out
}

func TestTracker_Update(t *testing.T) {
	root := p(100, 1, 50)
	cases := []struct {
		name    string
		scans   [][]Proc // applied in order; the last one's changes are checked
		members []string
		added   []string
		dropped []string
	}{
		{
			name:    "children and grandchildren join",
			scans:   [][]Proc{{root, p(101, 100, 60), p(102, 101, 61), p(200, 1, 10)}},
			members: []string{"100@50", "101@60", "102@61"},
			added:   []string{"101@60", "102@61"},
		},
		{
			name:    "a grandchild listed before its parent still joins",
			scans:   [][]Proc{{p(102, 101, 61), root, p(101, 100, 60)}},
			members: []string{"100@50", "101@60", "102@61"},
			added:   []string{"101@60", "102@61"},
		},
		{
			name: "one reparented to init after its parent died stays",
			scans: [][]Proc{
				{root, p(101, 100, 60), p(102, 101, 61)},
				{root, p(102, 1, 61)},
			},
			members: []string{"100@50", "102@61"},
			dropped: []string{"101@60"},
		},
		{
			name: "its children join after it was reparented",
			scans: [][]Proc{
				{root, p(101, 100, 60), p(102, 101, 61)},
				{p(102, 1, 61), p(103, 102, 70)},
			},
			members: []string{"102@61", "103@70"},
			added:   []string{"103@70"},
			dropped: []string{"100@50", "101@60"},
		},
		{
			name: "a recycled pid is dropped and its children do not join",
			scans: [][]Proc{
				{root, p(101, 100, 60)},
				{root, p(101, 1, 90), p(105, 101, 91)},
			},
			members: []string{"100@50"},
			dropped: []string{"101@60"},
		},
		{
			name: "a recycled member pid held by a new child of a member joins anew",
			scans: [][]Proc{
				{root, p(101, 100, 60)},
				{root, p(101, 100, 90)},
			},
			members: []string{"100@50", "101@90"},
			added:   []string{"101@90"},
			dropped: []string{"101@60"},
		},
		{
			name:    "a process claiming a member parent but older than it does not join",
			scans:   [][]Proc{{root, p(104, 100, 40)}},
			members: []string{"100@50"},
		},
		{
			name:    "everything gone",
			scans:   [][]Proc{{root, p(101, 100, 60)}, {p(200, 1, 10)}},
			members: []string{},
			dropped: []string{"100@50", "101@60"},
		},
		{
			name:    "nothing changes",
			scans:   [][]Proc{{root, p(101, 100, 60)}, {root, p(101, 100, 60), p(7, 1, 1)}},
			members: []string{"100@50", "101@60"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var fedAdded, fedDropped []Proc
			tr := newTracker(root, nil, func(a, d []Proc) {
				fedAdded = append(fedAdded, a...)
				fedDropped = append(fedDropped, d...)
			})
			var added, dropped []Proc
			for _, s := range tc.scans {
				added, dropped = tr.update(s)
			}
			if got := keys(tr.Members()); !slices.Equal(got, tc.members) {
				t.Errorf("members = %v, want %v", got, tc.members)
			}
			if got := keys(added); !slices.Equal(got, keysOr(tc.added)) {
				t.Errorf("added = %v, want %v", got, tc.added)
			}
			if got := keys(dropped); !slices.Equal(got, keysOr(tc.dropped)) {
				t.Errorf("dropped = %v, want %v", got, tc.dropped)
			}
			if tr.Len() != len(tc.members) {
				t.Errorf("Len = %d, want %d", tr.Len(), len(tc.members))
			}
			// The feed heard the root, everything added and dropped over
			// all scans: what it holds is the membership.
			heard := map[string]int{}
			for _, k := range keys(fedAdded) {
				heard[k]++
			}
			for _, k := range keys(fedDropped) {
				heard[k]--
			}
			var fed []string
			for k, n := range heard {
				if n == 1 {
					fed = append(fed, k)
				} else if n != 0 {
					t.Errorf("feed heard %s %+d times net", k, n)
				}
			}
			slices.Sort(fed)
			if !slices.Equal(keysOr(fed), tc.members) {
				t.Errorf("feed's membership = %v, want %v", fed, tc.members)
			}
		})
	}
}

func keysOr(k []string) []string {
	if k == nil {
		return []string{}
	}
	return k
}

func TestTracker_Forget(t *testing.T) {
	var dropped []Proc
	tr := newTracker(p(100, 1, 50), nil, func(_, d []Proc) { dropped = append(dropped, d...) })
	tr.update([]Proc{p(100, 1, 50), p(101, 100, 60)})
	if !tr.forget() {
		t.Fatal("first forget reported it was already done")
	}
	if tr.forget() {
		t.Error("second forget reported it ended the tracking")
	}
	if got, want := keys(dropped), []string{"100@50", "101@60"}; !slices.Equal(got, want) {
		t.Errorf("feed heard dropped %v at forget, want %v", got, want)
	}
	if a, d := tr.update([]Proc{p(100, 1, 50), p(102, 100, 70)}); a != nil || d != nil || tr.Len() != 0 {
		t.Errorf("update after forget changed %v %v, Len %d", a, d, tr.Len())
	}
}

func TestTracker_RescanError(t *testing.T) {
	boom := errors.New("boom")
	tr := newTracker(p(100, 1, 50), func() ([]Proc, error) { return nil, boom }, nil)
	if err := tr.Rescan(); !errors.Is(err, boom) {
		t.Fatalf("Rescan = %v, want %v", err, boom)
	}
	if got := keys(tr.Members()); !slices.Equal(got, []string{"100@50"}) {
		t.Errorf("a failed rescan changed the members: %v", got)
	}
}

// TestScanLoop_RescanVersusExit races the shared loop's scans against
// trackers closing and new ones opening, 50 times: every Close returns
// with the loop's goroutine stopped when it was the last, no update
// reaches a closed tracker, and the feed ends with nothing held.
func TestScanLoop_RescanVersusExit(t *testing.T) {
	for i := range 50 {
		var mu sync.Mutex
		held := map[int]int{} // pid → net adds heard
		fed := func(a, d []Proc) {
			mu.Lock()
			defer mu.Unlock()
			for _, q := range a {
				held[q.PID]++
			}
			for _, q := range d {
				held[q.PID]--
			}
		}
		var gen sync.Mutex
		n := 0
		list := func() ([]Proc, error) {
			gen.Lock()
			defer gen.Unlock()
			n++
			// Each root has a child that comes and goes with the scans.
			var out []Proc
			for r := 1000; r < 1008; r++ {
				out = append(out, p(r, 1, 1))
				if n%2 == 0 {
					out = append(out, p(r+100, r, 2))
				}
			}
			return out, nil
		}
		l := newScanLoop(time.Microsecond, list, nil)
		var wg sync.WaitGroup
		for r := 1000; r < 1008; r++ {
			wg.Go(func() {
				tr := newTracker(p(r, 1, 1), list, fed)
				l.add(tr)
				_ = tr.Rescan()
				if tr.forget() {
					l.remove(tr)
				}
			})
		}
		wg.Wait()
		l.mu.Lock()
		running, open := l.stop != nil, len(l.trackers)
		l.mu.Unlock()
		if running || open != 0 {
			t.Fatalf("round %d: after every tracker closed the loop runs %t with %d trackers", i, running, open)
		}
		for pid, c := range held {
			if c != 0 {
				t.Fatalf("round %d: feed holds pid %d %d times after every tracker closed", i, pid, c)
			}
		}
	}
}

// chanWaker is a waker the test drives: each wait reports the members it
// was given and returns when the test fires it or wake is called.
type chanWaker struct {
	fire    chan struct{}
	members chan []Proc
	woke    chan struct{}
	closed  chan struct{}
}

func (w *chanWaker) wait(members []Proc, _ time.Duration) {
	select {
	case w.members <- members:
	default:
	}
	select {
	case <-w.fire:
	case <-w.woke:
	}
}

func (w *chanWaker) wake() {
	select {
	case w.woke <- struct{}{}:
	default:
	}
}

func (w *chanWaker) close() { close(w.closed) }

// TestScanLoop_Waker checks the event-driven loop (macOS's kqueue): it
// rescans when the waker fires, not on a clock, hands the waker the
// members to watch, and the last Close wakes it, waits for the loop and
// closes it.
func TestScanLoop_Waker(t *testing.T) {
	w := &chanWaker{fire: make(chan struct{}), members: make(chan []Proc, 1), woke: make(chan struct{}, 1), closed: make(chan struct{})}
	var mu sync.Mutex
	child := false
	list := func() ([]Proc, error) {
		mu.Lock()
		defer mu.Unlock()
		out := []Proc{p(100, 1, 50)}
		if child {
			out = append(out, p(101, 100, 60))
		}
		return out, nil
	}
	l := newScanLoop(time.Hour, list, func() (waker, error) { return w, nil })
	tr := newTracker(p(100, 1, 50), list, nil)
	l.add(tr)
	if got := keys(<-w.members); !slices.Equal(got, []string{"100@50"}) {
		t.Fatalf("the waker watches %v, want the root", got)
	}
	mu.Lock()
	child = true
	mu.Unlock()
	w.fire <- struct{}{} // the root forked
	if got := keys(<-w.members); !slices.Equal(got, []string{"100@50", "101@60"}) {
		t.Fatalf("after a fork the waker watches %v, want the root and its child", got)
	}
	if tr.forget() {
		l.remove(tr)
	}
	select {
	case <-w.closed:
	default:
		t.Fatal("the last Close returned with the waker open")
	}
}
