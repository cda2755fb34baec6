//go:build darwin

package proctree

import (
	"context"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// exitPoll is how often a wait for signalled processes looks again: macOS
// has no pidfd to poll, and a kqueue per wait would cost more than the
// few rounds a kill takes.
const exitPoll = 10 * time.Millisecond

// maxAncestors bounds the ancestor walk against a corrupted or cyclic view.
const maxAncestors = 64

// protectSelf lists this process, its ancestors and their groups.
func protectSelf() protected {
	p := protected{pids: map[int]bool{0: true, 1: true}, pgids: map[int]bool{0: true, 1: true}}
	self := os.Getpid()
	p.pids[self], p.pgids[self], p.pgids[syscall.Getpgrp()] = true, true, true
	pid := self
	for range maxAncestors {
		st, ok := procInfo(pid)
		if !ok {
			break
		}
		p.pids[pid], p.pgids[st.PGID] = true, true
		if st.PPID <= 1 {
			break
		}
		pid = st.PPID
	}
	return p
}

// collect returns the live processes below roots and below every process
// whose environment satisfies match (nil: no environment scan), from one
// listing, skipping protected pids and everything below them.
func collect(roots []int, match func(env []byte) bool, prot protected) ([]Proc, error) {
	procs, err := listProcs()
	if err != nil {
		return nil, err
	}
	byPID := make(map[int]Proc, len(procs))
	kids := make(map[int][]int)
	queue := append([]int(nil), roots...)
	for _, p := range procs {
		byPID[p.PID] = p
		kids[p.PPID] = append(kids[p.PPID], p.PID)
		if match != nil && !prot.pids[p.PID] {
			if env := procEnviron(p.PID); env != nil && match(env) {
				queue = append(queue, p.PID)
			}
		}
	}
	seen := make(map[int]bool, len(queue))
	var out []Proc
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		p, ok := byPID[pid]
		if pid <= 0 || seen[pid] || prot.pids[pid] || !ok {
			continue
		}
		seen[pid] = true
		out = append(out, p)
		queue = append(queue, kids[pid]...)
	}
	return out, nil
}

// Descendants: see descendants_linux.go.
func Descendants(root int, marker string) ([]Proc, error) {
	prot := protectSelf()
	if err := checkRoot(root, prot); err != nil {
		return nil, err
	}
	return descendantsWith(os.Getpid(), root, marker, prot, nil)
}

// trustRoot: see descendants_linux.go. A zombie child of ours still holds
// its pid, so it cannot have been recycled.
func trustRoot(parent, root int, marker string) bool {
	if root <= 0 {
		return false
	}
	if marker == "" {
		return true
	}
	k, err := unix.SysctlKinfoProc("kern.proc.pid", root)
	if err != nil || k == nil || int(k.Proc.P_pid) != root {
		return false
	}
	if int(k.Eproc.Ppid) == parent {
		return true
	}
	return envHasEntry(procEnviron(root), markerEntry(marker))
}

// rootGroup is root's process group, zombie or not (0: gone).
func rootGroup(root int) int {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", root)
	if err != nil || k == nil || int(k.Proc.P_pid) != root {
		return 0
	}
	return int(k.Eproc.Pgid)
}

// Running reports whether pid names a process that has not exited.
func Running(pid int) bool {
	_, ok := procStart(pid)
	return ok
}

// IgnoresSIGTERM reports whether pid ignores SIGTERM, as an interactive
// shell does: such a root ends on the hang-up its terminal would send.
func IgnoresSIGTERM(pid int) bool { return ignores(pid, unix.SIGTERM) }

// ignores reports whether pid has sig's disposition set to ignore: XNU
// copies the process's p_sigignore (bit sig-1 per signal) into the
// kinfo_proc that kern.proc.pid returns.
func ignores(pid int, sig unix.Signal) bool {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k == nil || int(k.Proc.P_pid) != pid {
		return false
	}
	return sigInMask(uint64(k.Proc.P_sigignore), sig)
}

// killer signals processes by (pid, start time), checking the start
// time right before each kill(2): without pidfds a recycled pid can only
// be told apart that way, leaving the microseconds between the check and
// the kill.
type killer struct {
	prot      protected
	live      map[procKey]bool // signalled, not yet seen gone
	signalled map[procKey]bool
}

func newKiller(prot protected) *killer {
	return &killer{prot: prot, live: map[procKey]bool{}, signalled: map[procKey]bool{}}
}

// close releases nothing: without pidfds a killer holds no descriptors.
func (k *killer) close() {}

// count is the number of distinct processes signalled so far.
func (k *killer) count() int { return len(k.signalled) }

// pending reports whether any signalled process has not been seen gone.
func (k *killer) pending() bool { return len(k.live) > 0 }

// signalRest signals every earlier-signalled process not in seen.
func (k *killer) signalRest(seen map[procKey]bool, sig unix.Signal) {
	for key := range k.live {
		if !seen[key] {
			k.signalProc(key, sig)
		}
	}
}

func (k *killer) signalProc(key procKey, sig unix.Signal) {
	if k.prot.pids[key.pid] || key.pid <= 1 {
		return
	}
	if start, ok := procStart(key.pid); !ok || start != key.start {
		delete(k.live, key)
		return
	}
	k.live[key] = true
	if unix.Kill(key.pid, sig) == nil {
		k.signalled[key] = true
	}
}

// wait returns once every signalled process is gone, d has passed or ctx
// is done.
func (k *killer) wait(ctx context.Context, d time.Duration) {
	deadline := time.Now().Add(d)
	for {
		for key := range k.live {
			if start, ok := procStart(key.pid); !ok || start != key.start {
				delete(k.live, key)
			}
		}
		if len(k.live) == 0 || ctx.Err() != nil || !time.Now().Before(deadline) {
			return
		}
		t := time.NewTimer(min(exitPoll, time.Until(deadline)))
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// afterKill waits a little for what a SIGKILL round signalled before the
// next scan: without pidfds the exits are seen by polling.
func (k *killer) afterKill(deadline time.Time) {
	k.wait(context.Background(), min(exitPoll*10, time.Until(deadline)))
}
