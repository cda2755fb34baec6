package proctree

import (
	"bytes"
	"encoding/binary"
)

// procArgsEnv returns the environment part of a KERN_PROCARGS2 buffer
// (macOS's sysctl kern.procargs2 of a pid), NUL-separated as
// /proc/PID/environ is, or nil if b is not one. The layout (XNU
// bsd/kern/kern_sysctl.c, sysctl_procargsx): argc as a native int32, the
// executable's path, NUL padding, then argc NUL-terminated arguments, then
// the environment's entries, each NUL-terminated, up to an empty one or
// the end; what follows (the apple[] strings) is not the environment.
func procArgsEnv(b []byte) []byte {
	if len(b) < 4 {
		return nil
	}
	argc := int(int32(binary.NativeEndian.Uint32(b)))
	rest := b[4:]
	i := bytes.IndexByte(rest, 0)
	if argc < 0 || i < 0 {
		return nil
	}
	rest = rest[i:]
	for len(rest) > 0 && rest[0] == 0 {
		rest = rest[1:]
	}
	for ; argc > 0; argc-- {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return nil
		}
		rest = rest[i+1:]
	}
	end := 0
	for end < len(rest) {
		i := bytes.IndexByte(rest[end:], 0)
		if i == 0 {
			break // the empty entry that ends the environment
		}
		if i < 0 {
			end = len(rest)
			break
		}
		end += i + 1
	}
	return rest[:end]
}
