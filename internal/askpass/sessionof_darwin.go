package askpass

import (
	"strings"

	"github.com/agentty/agentty/internal/darwinproc"
	"golang.org/x/sys/unix"
)

// envValues are the values of key in pid's environment (kern.procargs2),
// none when the kernel does not show it: another user's process (sudo's),
// or one whose environment SIP withholds.
func envValues(pid int, key string) []string {
	a, err := darwinproc.ProcArgs(pid)
	if err != nil {
		return nil
	}
	var out []string
	for _, kv := range a.Env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			out = append(out, v)
		}
	}
	return out
}

// parentOf is pid's parent from sysctl kern.proc.pid, which answers for
// any user's process; 0 when unknown.
func parentOf(pid int) int {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(kp.Proc.P_pid) != pid {
		return 0
	}
	return int(kp.Eproc.Ppid)
}
