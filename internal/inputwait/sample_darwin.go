//go:build darwin

package inputwait

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/darwinproc"
	"github.com/agentty/agentty/internal/ttymode"
)

// macOS's facts for the inferred verdict (compiled and vetted, not run
// here): the foreground group through the master (TIOCGPGRP; on XNU the
// master's job-control ioctls act on the slave, as tmux relies on), its
// members from kern.proc.pgrp, their CPU and counters from
// proc_pidinfo(PROC_PIDTASKINFO), every thread's run state from
// PROC_PIDTHREADINFO, the slave's queues (FIONREAD, TIOCOUTQ) and the
// modes (TIOCGETA).

// inferBuilt: this build has a sampler for the inferred verdict.
const inferBuilt = true

// fionread is FIONREAD, _IOR('f', 127, int); x/sys has no darwin name for it.
const fionread = 0x4004667f

// ownPid is agentty's: never a member of a session's group.
var ownPid = os.Getpid()

// XNU's p_stat values (sys/proc.h).
const (
	sStop   = 4
	sZombie = 5
)

// sampleScratch holds one Inspector's sampling state.
type sampleScratch struct {
	s      sample
	master *os.File // the master slave was named from
	slave  string   // the slave's name, "/dev/ttysNNN"
}

// close: nothing is kept open between probes here.
func (*sampleScratch) close() {}

// control runs fn on f's descriptor without f.Fd(), which would make it
// blocking.
func control(f *os.File, fn func(fd uintptr) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(fd) }); err != nil {
		return fmt.Errorf("%w: %v", os.ErrClosed, err)
	}
	return ferr
}

// ptsName asks the master for its slave's name (TIOCPTYGNAME), as
// creack/pty does when it opens one.
func ptsName(fd uintptr) (string, error) {
	var buf [128]byte // _IOC_PARM_LEN(TIOCPTYGNAME)
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, unix.TIOCPTYGNAME, uintptr(unsafe.Pointer(&buf[0]))); e != 0 {
		return "", e
	}
	for i, c := range buf {
		if c == 0 {
			return string(buf[:i]), nil
		}
	}
	return "", errors.New("TIOCPTYGNAME: name not terminated")
}

// take samples t's foreground group: members, their counters and whether
// any runs or is stopped. nil means the root has exited.
func (sc *sampleScratch) take(t Target) (*sample, error) {
	pgid := 0
	err := control(t.PTY, func(fd uintptr) error {
		pg, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP)
		if err != nil {
			return fmt.Errorf("TIOCGPGRP: %w", err)
		}
		pgid = pg
		if sc.master != t.PTY {
			name, err := ptsName(fd)
			if err != nil {
				return fmt.Errorf("TIOCPTYGNAME: %w", err)
			}
			sc.master, sc.slave = t.PTY, name
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("inputwait: query pty master: %w", err)
	}
	root, err := unix.SysctlKinfoProc("kern.proc.pid", t.Root)
	if err != nil || root.Proc.P_pid != int32(t.Root) || root.Proc.P_stat == sZombie {
		return nil, nil
	}
	sid, err := unix.Getsid(t.Root)
	if err != nil {
		return nil, nil
	}
	s := &sc.s
	*s = sample{at: time.Now(), pty: true, pgid: pgid, members: s.members[:0], inq: -1, outq: -1}
	if pgid <= 0 {
		return s, nil
	}
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil, fmt.Errorf("inputwait: kern.proc.pgrp %d: %w", pgid, err)
	}
	for i := range procs {
		p := &procs[i].Proc
		pid := int(p.P_pid)
		if p.P_stat == sZombie || pid == ownPid {
			continue
		}
		// A group of another session with the same number is not ours.
		if msid, err := unix.Getsid(pid); err != nil || msid != sid {
			continue
		}
		ti, err := darwinproc.TaskInfo(pid)
		if errors.Is(err, darwinproc.ErrNoProcess) {
			continue // it ended while we looked
		}
		if err != nil {
			return nil, fmt.Errorf("inputwait: task info of pid %d: %w", pid, err)
		}
		m := sampleMember{
			start: uint64(p.P_starttime.Sec)*1e6 + uint64(p.P_starttime.Usec),
			cpuNS: ti.TotalUser + ti.TotalSystem,
			// The kernel's counters are int32s that wrap: compared for
			// equality only, so their bits are enough.
			runs: uint64(uint32(ti.SyscallsUnix))<<32 | uint64(uint32(ti.SyscallsMach)),
			csw:  uint64(uint32(ti.CSw)),
		}
		m.pid = pid
		m.comm.n = copy(m.comm.b[:], cString(p.P_comm[:]))
		switch {
		case ti.NumRunning > 0:
			m.state = runRunning
		case p.P_stat == sStop:
			m.state = runStopped
		}
		s.members = append(s.members, m)
	}
	return s, nil
}

func cString(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// deep reads every member's thread states, then the slave's queues on a
// descriptor opened by name and closed at once (holding it would keep the
// child's hang-up from happening), then the modes.
func (sc *sampleScratch) deep(t Target, s *sample) error {
	for i := range s.members {
		m := &s.members[i]
		ths, err := darwinproc.Threads(m.pid)
		if errors.Is(err, darwinproc.ErrNoProcess) {
			m.state = runRunning // it changed under us: not quiet
			continue
		}
		if err != nil {
			return fmt.Errorf("inputwait: threads of pid %d: %w", m.pid, err)
		}
		for _, th := range ths {
			r := runWaiting
			switch th.RunState {
			case darwinproc.RunRunning:
				r = runRunning
			case darwinproc.RunUninterruptible:
				r = runUninterruptible
			case darwinproc.RunStopped, darwinproc.RunHalted:
				r = runStopped
			}
			if worse(r, m.state) {
				m.state, m.tid = r, 0
			}
			s.threads++
		}
	}
	fd, err := unix.Open(sc.slave, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("inputwait: open the terminal: %w", err)
	}
	s.inq, err = unix.IoctlGetInt(fd, fionread)
	if err == nil {
		s.outq, err = unix.IoctlGetInt(fd, unix.TIOCOUTQ)
	}
	unix.Close(fd)
	if err != nil {
		return fmt.Errorf("inputwait: terminal queues: %w", err)
	}
	md, err := ttymode.Read(t.PTY)
	if err != nil {
		return fmt.Errorf("inputwait: terminal modes: %w", err)
	}
	s.canonical, s.echo = md.Canonical, md.Echo
	return nil
}
