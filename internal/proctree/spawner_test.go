//go:build linux

package proctree

import (
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

func TestSpawnerSameThread(t *testing.T) {
	sp := NewSpawner()
	defer sp.Close()
	var first int
	sp.Do(func() { first = unix.Gettid() })
	var wg sync.WaitGroup
	tids := make([]int, 16)
	for i := range tids {
		wg.Go(func() {
			for range 10 {
				sp.Do(func() { tids[i] = unix.Gettid() })
				if tids[i] != first {
					return
				}
			}
		})
	}
	wg.Wait()
	for i, tid := range tids {
		if tid != first {
			t.Fatalf("call %d ran on thread %d, want %d", i, tid, first)
		}
	}
}

func TestSpawnerPanicReachesCaller(t *testing.T) {
	sp := NewSpawner()
	defer sp.Close()
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Fatalf("recovered %v, want boom", p)
			}
		}()
		sp.Do(func() { panic("boom") })
	}()
	ran := false
	sp.Do(func() { ran = true })
	if !ran {
		t.Fatal("spawner dead after a panic")
	}
}

func TestSpawnerDoAfterClose(t *testing.T) {
	sp := NewSpawner()
	sp.Close()
	sp.Close()
	ran := false
	sp.Do(func() { ran = true })
	if !ran {
		t.Fatal("Do after Close did not run fn")
	}
}

// TestSpawner_Defer: a deferred job runs on the spawner thread before the
// next job, or at Kick, and never if the spawner closes first.
func TestSpawner_Defer(t *testing.T) {
	t.Run("before the next job", func(t *testing.T) {
		sp := NewSpawner()
		defer sp.Close()
		var order []string
		var tid, deferredTid int
		done := sp.Defer(func() { order = append(order, "deferred"); deferredTid = unix.Gettid() })
		select {
		case <-done:
			t.Fatal("the deferred job ran before anything asked for it")
		default:
		}
		sp.Do(func() { order = append(order, "job"); tid = unix.Gettid() })
		if p := <-done; p != nil {
			t.Fatalf("deferred job panicked: %v", p)
		}
		if len(order) != 2 || order[0] != "deferred" || order[1] != "job" || tid != deferredTid {
			t.Fatalf("order %v on threads %d, %d; want the deferred job first, same thread", order, deferredTid, tid)
		}
		sp.Do(func() { order = append(order, "job") })
		if len(order) != 3 {
			t.Fatalf("order %v: the deferred job ran twice", order)
		}
	})
	t.Run("at kick", func(t *testing.T) {
		sp := NewSpawner()
		defer sp.Close()
		ran := false
		done := sp.Defer(func() { ran = true })
		sp.Kick()
		if p := <-done; p != nil || !ran {
			t.Fatalf("kicked job: ran=%v panic=%v", ran, p)
		}
		sp.Kick() // nothing deferred: nothing happens
	})
	t.Run("never after close", func(t *testing.T) {
		sp := NewSpawner()
		ran := false
		done := sp.Defer(func() { ran = true })
		sp.Close()
		if p := <-done; p != nil || ran {
			t.Fatalf("after close: ran=%v panic=%v, want not run", ran, p)
		}
	})
}
