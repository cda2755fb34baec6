//go:build windows

package stdin

import "os"

// Pollable is os.Stdin: an anonymous pipe a client hands over is
// synchronous on Windows, so a read on it cannot be parked in the poller
// nor ended by a deadline. That costs nothing: the one reader that would
// need stopping is the daemon relay's, when the daemon goes first, and
// then the relay leaves the read blocked (it sets no deadline it cannot
// have) and serve exits, which ends it; while the client writes, the
// blocked read is the relay's wait for it anyway.
func Pollable() *os.File { return os.Stdin }

// PollableStdout is os.Stdout, for the same reason.
func PollableStdout() *os.File { return os.Stdout }
