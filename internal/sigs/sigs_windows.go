package sigs

import (
	"strings"
	"syscall"
)

// The signals the engine names, with Linux's numbers: Windows has none
// of them.
const (
	TSTP  = syscall.Signal(20)
	CONT  = syscall.Signal(18)
	WINCH = syscall.Signal(28)
	USR1  = syscall.Signal(10)
	USR2  = syscall.Signal(12)
	XCPU  = syscall.Signal(24)
	XFSZ  = syscall.Signal(25)
)

// linuxNames are Linux's signal names by number (index 0 unused).
var linuxNames = [...]string{"", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
	"SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT",
	"SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",
	"SIGIO", "SIGPWR", "SIGSYS"}

func name(sig syscall.Signal) string {
	if sig > 0 && int(sig) < len(linuxNames) {
		return linuxNames[sig]
	}
	return ""
}

func parse(name string) (syscall.Signal, bool) {
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	for i, n := range linuxNames {
		if i > 0 && n == name {
			return syscall.Signal(i), true
		}
	}
	return 0, false
}
