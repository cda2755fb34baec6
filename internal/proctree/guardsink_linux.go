//go:build linux

package proctree

import "sync"

var feed struct {
	mu   sync.Mutex
	sink feedSink // guarded by mu; nil: no guard listens
}

// setFeed makes sink (nil: none) hear every change from now on, after the
// members tracked so far.
func setFeed(sink feedSink, now []Proc) {
	feed.mu.Lock()
	defer feed.mu.Unlock()
	feed.sink = sink
	if sink != nil {
		writeFeed(sink, now, nil)
	}
}

// feedGuard is every Tracker's feed.
func feedGuard(added, dropped []Proc) {
	feed.mu.Lock()
	defer feed.mu.Unlock()
	if feed.sink != nil {
		writeFeed(feed.sink, added, dropped)
	}
}
