package proctree

import "syscall"

// sigInMask reports whether sig's bit (sig-1) is set in a kernel signal
// mask: Linux's SigIgn and XNU's p_sigignore both number them so.
func sigInMask(mask uint64, sig syscall.Signal) bool {
	return sig > 0 && sig <= 64 && mask&(1<<(uint(sig)-1)) != 0
}
