//go:build linux

package proctree

import "golang.org/x/sys/unix"

// IgnoresSIGTERM reports whether pid ignores SIGTERM, as an interactive
// shell does: such a root ends on the hang-up its terminal would send.
func IgnoresSIGTERM(pid int) bool { return ignores(pid, unix.SIGTERM) }
