package server

import (
	"runtime"
	"testing"
	"time"
)

// TestNotifyGC_EachCollection: one note per collection, none after stop.
func TestNotifyGC_EachCollection(t *testing.T) {
	ch := make(chan struct{}, 1)
	stop := make(chan struct{})
	notifyGC(ch, stop)
	// Fifty rounds: a cleanup that noted before arming the next one let
	// the reader's collection run with nothing armed (once in about 60
	// runs of three rounds).
	for i := range 50 {
		runtime.GC()
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("no note after collection %d", i+1)
		}
	}
	// Only a cleanup that looked at stop before it closed can still send,
	// and each arms the next only after looking: one note at most. A chain
	// that went on would note most of these collections.
	// A note another collection left pending would count against the
	// stop: take it first.
	select {
	case <-ch:
	default:
	}
	close(stop)
	notes := 0
	for range 50 {
		runtime.GC()
		select {
		case <-ch:
			notes++
		case <-time.After(20 * time.Millisecond):
		}
	}
	if notes > 1 {
		t.Fatalf("%d notes in 50 collections after stop, want at most 1", notes)
	}
}
