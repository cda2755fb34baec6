//go:build !windows

package peers

import "os"

// Self is this process as a peer would see it.
func Self() (Cred, error) { return Cred{UID: os.Getuid(), PID: os.Getpid()}, nil }
