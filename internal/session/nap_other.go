//go:build !linux

package session

import "time"

// nap sleeps for d (see nap_linux.go).
func nap(d time.Duration) { time.Sleep(d) }
