//go:build windows

package main

import (
	"context"
	"time"

	"golang.org/x/term"
)

// resizePoll is how often the console's size is read: Windows sends no
// signal when a console is resized.
const resizePoll = 250 * time.Millisecond

// watchResize sends on resized whenever the console fd's size changes,
// read every resizePoll until ctx ends or stop is called; stop waits for
// the poller.
func watchResize(ctx context.Context, fd int, resized chan<- struct{}) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(resizePoll)
		defer t.Stop()
		cols, rows, _ := term.GetSize(fd)
		for {
			select {
			case <-t.C:
				c, r, err := term.GetSize(fd)
				if err != nil || (c == cols && r == rows) {
					continue
				}
				cols, rows = c, r
				select {
				case resized <- struct{}{}:
				default:
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}
