//go:build unix

package sigs

import (
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The signals the engine names, this platform's numbers.
const (
	TSTP  = syscall.SIGTSTP
	CONT  = syscall.SIGCONT
	WINCH = syscall.SIGWINCH
	USR1  = syscall.SIGUSR1
	USR2  = syscall.SIGUSR2
	XCPU  = syscall.SIGXCPU
	XFSZ  = syscall.SIGXFSZ
)

func name(sig syscall.Signal) string { return unix.SignalName(sig) }

func parse(name string) (syscall.Signal, bool) {
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	sig := unix.SignalNum(name)
	return sig, sig != 0
}
