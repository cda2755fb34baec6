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
