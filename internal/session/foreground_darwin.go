package session

import (
	"fmt"

	"github.com/agentty/agentty/internal/darwinproc"
	"github.com/agentty/agentty/internal/record"
	"golang.org/x/sys/unix"
)

// Foreground reports who reads the session's input now: for a PTY the
// terminal's foreground process group (the root's e_tpgid), for pipes the
// root's group. Groups and names come from sysctl kern.proc.pid, which
// answers for any user's process (a sudo in the session is root's);
// children from proc_listpids, arguments from kern.procargs2 (the user's
// own processes only: another user's have none), the working directory
// from libproc.
func (s *Session) Foreground() (Foreground, error) {
	if isDone(s.done) {
		return Foreground{}, s.exitedErr()
	}
	root := s.PID()
	f := Foreground{PGID: root, PID: root}
	if s.Mode == record.ModePTY {
		kp, err := kinfo(root)
		if err != nil {
			return Foreground{}, fmt.Errorf("foreground of %s: %w", s.ID, err)
		}
		if kp.Eproc.Tpgid > 0 {
			f.PGID, f.PID = int(kp.Eproc.Tpgid), int(kp.Eproc.Tpgid)
		}
	}
	walkForeground(&f, root, darwinProcs{})
	f.Cwd, _ = darwinproc.Cwd(f.PID)
	return f, nil
}

// darwinProcs reads processes for walkForeground from the kernel.
type darwinProcs struct{}

func (darwinProcs) group(pid int) (int, string, bool) {
	kp, err := kinfo(pid)
	if err != nil {
		return 0, "", false
	}
	return int(kp.Eproc.Pgid), unix.ByteSliceToString(kp.Proc.P_comm[:]), true
}

func (darwinProcs) args(pid int) []string {
	a, err := darwinproc.ProcArgs(pid)
	if err != nil {
		return nil
	}
	return a.Argv
}

func (darwinProcs) children(pid int) []int {
	kids, _ := darwinproc.Children(pid)
	return kids
}

// kinfo is pid's kinfo_proc; the sysctl answers an empty record for a pid
// no process has.
func kinfo(pid int) (*unix.KinfoProc, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(kp.Proc.P_pid) != pid {
		return nil, fmt.Errorf("process %d: %w", pid, darwinproc.ErrNoProcess)
	}
	return kp, nil
}
