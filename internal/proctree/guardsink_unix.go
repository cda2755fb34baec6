//go:build linux || darwin

package proctree

import "sync"

var feed struct {
	mu   sync.Mutex
	sink feedSink // guarded by mu; nil: no guard listens
}

// feedGuard is every Tracker's feed.
func feedGuard(added, dropped []Proc) {
	feed.mu.Lock()
	defer feed.mu.Unlock()
	if feed.sink != nil {
		writeFeed(feed.sink, added, dropped)
	}
}
