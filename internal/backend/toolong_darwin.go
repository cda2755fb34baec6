package backend

import "golang.org/x/sys/unix"

// argMax is the kernel's bound on arguments and environment together
// (sysctl kern.argmax, ARG_MAX: 1 MiB).
func argMax() int {
	if n, err := unix.SysctlUint32("kern.argmax"); err == nil && n > 0 {
		return int(n)
	}
	return 1 << 20
}

// stringLimit: XNU bounds no single string below ARG_MAX.
func stringLimit() int { return argMax() }
