package backend

import "golang.org/x/sys/unix"

// fionread asks a pipe or a terminal for its queued bytes (TIOCINQ is
// FIONREAD).
const fionread = unix.TIOCINQ
