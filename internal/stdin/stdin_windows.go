//go:build windows

package stdin

import "os"

// Pollable is os.Stdin: an anonymous pipe a client hands over is
// synchronous on Windows, so a read on it cannot be parked in the poller
// nor ended by a deadline.
func Pollable() *os.File { return os.Stdin }

// PollableStdout is os.Stdout, for the same reason.
func PollableStdout() *os.File { return os.Stdout }
