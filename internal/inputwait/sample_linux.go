//go:build linux && (amd64 || arm64)

package inputwait

import (
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// The inferred verdict on Linux (AGENTTY_PORTABLE=verdict) reads only what
// macOS also shows, so CI runs macOS's decision here: the foreground group
// (TIOCGPGRP), each thread's run state and CPU and scheduling counters,
// the slave's queues and the modes. Never wchan, syscall or fdinfo.

// sampleScratch holds one Inspector's sampling state. Like the exact
// verdict's Inspector it keeps the members' /proc files open between
// probes (see fdCache): a steady probe costs a pread per file.
type sampleScratch struct {
	s      sample
	pts    uint32
	slave  string // the slave's name, "/dev/pts/N"
	cache  fdCache
	closed bool // after close, probes open and close their files
}

// close closes the files kept open; later probes run uncached.
func (sc *sampleScratch) close() {
	sc.closed = true
	sc.cache.gen++
	sc.cache.prune()
}

// inferBuilt: this build has a sampler for the inferred verdict.
const inferBuilt = true

// take samples t's foreground group: its members, their threads' states
// and run counters. nil means the root has exited.
func (sc *sampleScratch) take(t Target) (*sample, error) {
	var pts uint32
	pgid := 0
	err := withFd(t.PTY, func(fd int) error {
		pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		if err != nil {
			return fmt.Errorf("TIOCGPGRP: %w", err)
		}
		pgid = pg
		if pts, err = unix.IoctlGetUint32(fd, unix.TIOCGPTN); err != nil {
			return fmt.Errorf("TIOCGPTN: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("inputwait: query pty master: %w", err)
	}
	if sc.slave == "" || sc.pts != pts {
		sc.pts, sc.slave = pts, "/dev/pts/"+strconv.FormatUint(uint64(pts), 10)
	}

	in := inspectors.Get().(*inspector)
	defer inspectors.Put(in)
	in.reset()
	if !sc.closed {
		in.cache = &sc.cache
		sc.cache.gen++
		defer func() {
			in.cache = nil
			sc.cache.prune()
		}()
	}
	// The walk finds the group's members below the root, and scans for
	// the rest when the leader is not there: kern.proc.pgrp's answer.
	in.ptyMode, in.pgid = true, pgid
	s := &sc.s
	*s = sample{at: time.Now(), pty: true, pgid: pgid, members: s.members[:0], inq: -1, outq: -1}
	if !in.walk(t.Root) {
		return nil, nil
	}
	for mi := range in.members {
		lm := &in.members[mi]
		m := sampleMember{member: lm.member, start: lm.st.start}
		n := 0
		for _, tid := range in.tids[lm.start:lm.end] {
			if in.sampleThread(lm.pid, tid, &m) {
				n++
			}
		}
		if n == 0 {
			continue // it exited while we looked
		}
		s.threads += n
		s.members = append(s.members, m)
	}
	return s, nil
}

// sampleThread adds one thread's state and counters to m; false if the
// thread is gone or a zombie.
func (in *inspector) sampleThread(pid, tid int, m *sampleMember) bool {
	b, err := in.readProc(pid, tid, leafStat, 1<<16)
	var st statInfo
	if err != nil || !parseStat(b, &st) || isZombie(st.state) {
		return false
	}
	r := runWaiting
	switch st.state {
	case 'R':
		r = runRunning
	case 'D':
		r = runUninterruptible
	case 'T', 't':
		r = runStopped
	}
	if worse(r, m.state) {
		m.state, m.tid = r, tid
	}
	if b, err := in.readProc(pid, tid, leafSchedstat, 256); err == nil {
		if ns, pc, ok := parseSchedstat(b); ok {
			m.cpuNS += ns
			m.runs += pc
			return true
		}
	}
	// Without schedstat (CONFIG_SCHEDSTATS=n) the context switch counts
	// are the run counter.
	if b, err := in.readProc(pid, tid, leafStatus, 1<<16); err == nil {
		m.csw += parseCtxtSwitches(b)
	}
	return true
}

// deep reads the terminal's queues, then its modes, after the group was
// seen quiet, as the exact verdict reads modes after the block. The input
// queue is the slave's: it is opened by name and closed at once (holding
// it open would keep the child's hang-up from happening). Linux's pty
// slave reports no output queue (TIOCOUTQ is always 0), so output a
// stalled writer left is counted where it waits: unread on the master.
func (sc *sampleScratch) deep(t Target, s *sample) error {
	fd, err := unix.Open(sc.slave, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("inputwait: open the terminal: %w", err)
	}
	s.inq, err = unix.IoctlGetInt(fd, unix.TIOCINQ)
	unix.Close(fd)
	if err != nil {
		return fmt.Errorf("inputwait: terminal input queue: %w", err)
	}
	err = withFd(t.PTY, func(fd int) error {
		var err error
		s.outq, err = unix.IoctlGetInt(fd, unix.TIOCINQ)
		return err
	})
	if err != nil {
		return fmt.Errorf("inputwait: terminal output queue: %w", err)
	}
	tio, err := PTYTermios(t.PTY)
	if err != nil {
		return err
	}
	s.canonical, s.echo = tio.Lflag&unix.ICANON != 0, tio.Lflag&unix.ECHO != 0
	return nil
}
