package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/cgroup"
	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/platform"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/sandbox"
)

// groupWait bounds how long terminate waits for a killed group to empty.
const groupWait = 5 * time.Second

// box is the containment of one started process tree.
type box struct {
	report contain.Report // fixed at start: kind, reason, cgroup, sandbox, limits
	group  *cgroup.Group  // nil: process-tree tracking

	mu      sync.Mutex
	usage   *contain.Usage // guarded by mu; the last reading, kept once the group is gone
	endedBy string         // guarded by mu
	removed bool           // guarded by mu: the group's directory is gone
}

// startContained starts cmd as spec.Contain says, on the spawner thread
// through start: in its own cgroup (placed there at clone time), through
// the sandbox helper when the profile needs one, and through a keeper
// (spec.Keeper) when no cgroup holds it. On any failure after the fork it
// kills and reaps the child and removes its group.
func startContained(cmd *exec.Cmd, spec Spec, start func(func())) (*box, *kept, error) {
	// As from a terminal: SIGHUP and SIGINT at their defaults, whatever
	// agentty was started with.
	proctree.ChildDefaults()
	if platform.Current().Tree {
		// As on macOS: no keeper, whose subreaper would hold the tree;
		// a Tracker follows it (localTree.setRoot).
		spec.Keeper = nil
	}
	var k *kept
	run := func() error {
		if len(spec.Keeper) == 0 {
			var err error
			start(func() { err = cmd.Start() })
			return err
		}
		var err error
		k, err = startKept(cmd, spec.Keeper, start)
		return err
	}
	c := spec.Contain
	if c == nil {
		err := tooLong(spec, run()) // before k is read: run sets it
		return nil, k, err
	}
	b := &box{report: contain.Report{Kind: contain.KindProcessTree, Reason: c.NoCgroup, Limits: c.Profile.Limits,
		Sandbox: applied(c.Profile)}}
	if c.Cgroups != nil {
		g, err := c.Cgroups.New(c.Group, cgroupLimits(c.Profile.Limits))
		if err != nil {
			return nil, nil, err
		}
		b.group = g
		b.report.Kind, b.report.Reason, b.report.Cgroup = contain.KindCgroup, "", g.Dir()
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, g.FD()
	}
	var l *sandbox.Launch
	if c.Profile.NeedsHelper() {
		var err error
		if l, err = sandbox.Prepare(cmd, c.Profile); err != nil {
			b.drop()
			return nil, nil, err
		}
	}
	var err error
	if b.group != nil {
		start(func() { err = cmd.Start() })
	} else {
		err = run()
	}
	if err != nil && b.group != nil && errors.Is(err, unix.ENOSYS) {
		// No clone3 (kernel < 5.7): start, then move the root in. Its
		// children forked before the move stay outside.
		cmd.SysProcAttr.UseCgroupFD = false
		start(func() { err = cmd.Start() })
		if err == nil {
			err = b.group.Join(cmd.Process.Pid)
		}
	}
	if b.group != nil {
		b.group.CloseFD()
	}
	if l != nil {
		err = l.Started(err)
	}
	if err != nil {
		if k != nil {
			_ = k.end()
		} else if cmd.Process != nil {
			_ = cmd.Process.Kill()
			_, _ = cmd.Process.Wait()
		}
		b.drop()
		return nil, nil, tooLong(spec, err)
	}
	return b, k, nil
}

// applied names the sandbox parts of p for the report.
func applied(p contain.Profile) []string {
	var out []string
	s := p.Sandbox
	if s.Filesystem != contain.FSOff {
		out = append(out, "landlock:"+s.Filesystem)
	}
	if s.NoNetwork {
		out = append(out, "netns")
	}
	if s.NoNewPrivs || s.Filesystem != contain.FSOff {
		out = append(out, "no_new_privs")
	}
	if p.Limits.Rlimits() {
		out = append(out, "rlimits")
	}
	return out
}

func cgroupLimits(l contain.Limits) cgroup.Limits {
	return cgroup.Limits{MemoryMax: l.MemoryMax, MemoryHigh: l.MemoryHigh, PidsMax: l.PidsMax, CPUPercent: l.CPUPercent}
}

// drop removes the group of a start that failed.
func (b *box) drop() {
	if b.group != nil {
		_ = b.group.Kill()
		_ = b.group.Remove()
	}
}

// terminate ends everything in the group: with grace, SIGTERM and SIGCONT
// to every member (and the hang-up a terminal sends to a root that ignores
// SIGTERM) and a wait for the group to empty; then cgroup.kill, a wait for
// "populated 0" and the group's removal.
func (b *box) terminate(ctx context.Context, root int, grace time.Duration) error {
	if b.gone() {
		return nil
	}
	g := b.group
	if pop, _ := g.Populated(); pop && grace > 0 && ctx.Err() == nil {
		_ = g.Signal(syscall.SIGTERM)
		_ = g.Signal(syscall.SIGCONT)
		gctx, cancel := context.WithTimeout(ctx, grace)
		if proctree.IgnoresSIGTERM(root) && b.hangUp(root) {
			b.waitHungUp(gctx, root)
		} else {
			_ = g.WaitEmpty(gctx)
		}
		cancel()
	}
	if err := b.kill(); err != nil {
		return fmt.Errorf("kill cgroup %s: %w", g.Dir(), err)
	}
	kctx, cancel := context.WithTimeout(context.Background(), groupWait)
	defer cancel()
	if err := g.WaitEmpty(kctx); err != nil {
		return fmt.Errorf("%w: %w%s", proctree.ErrSurvivors, err, survivors(g))
	}
	return b.remove()
}

// survivors names what is still in g, each with its state (/proc/PID/stat),
// so a group that outlived its kill says why: a process in D or a zombie.
func survivors(g *cgroup.Group) string {
	pids, err := g.Procs()
	if err != nil || len(pids) == 0 {
		return " (cgroup.procs lists none)"
	}
	var b strings.Builder
	b.WriteString(" (left:")
	for i, pid := range pids {
		if i == 8 {
			fmt.Fprintf(&b, " and %d more", len(pids)-i)
			break
		}
		st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		comm, state := "?", "?"
		if l, r := bytes.IndexByte(st, '('), bytes.LastIndexByte(st, ')'); l >= 0 && r > l && r+2 < len(st) {
			comm, state = string(st[l+1:r]), string(st[r+2])
		}
		fmt.Fprintf(&b, " %d %s %s", pid, comm, state)
	}
	b.WriteString(")")
	return b.String()
}

// release removes the group when nothing is left in it (Close); a group
// with stray processes stays for terminate.
func (b *box) release() {
	if b == nil || b.group == nil || b.gone() {
		return
	}
	if pop, err := b.group.Populated(); err == nil && !pop {
		_ = b.remove()
	}
}

// kill is cgroup.kill, unless the group was removed: the exit path
// (release) removes a group that emptied at SIGTERM while terminate was
// about to kill it, and a write racing that rmdir fails with ENODEV. Both
// under mu, so one sees the other's result.
func (b *box) kill() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.removed {
		return nil
	}
	return b.group.Kill()
}

func (b *box) gone() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.removed
}

// remove keeps the last usage and deletes the empty group.
func (b *box) remove() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.removed {
		return nil
	}
	if u, err := b.group.Usage(); err == nil {
		b.usage = usageOf(u)
	}
	if err := b.group.Remove(); err != nil {
		return fmt.Errorf("remove cgroup %s: %w", b.group.Dir(), err)
	}
	b.removed = true
	return nil
}

func usageOf(u cgroup.Usage) *contain.Usage {
	return &contain.Usage{MemoryCurrent: u.MemoryCurrent, MemoryPeak: u.MemoryPeak, CPUUsec: u.CPUUsec,
		Processes: u.Processes, OOMKills: u.OOMKills}
}

// snapshot is the report now: live usage while the group exists.
func (b *box) snapshot() contain.Report {
	r := b.report
	b.mu.Lock()
	defer b.mu.Unlock()
	r.EndedBy = b.endedBy
	if b.group != nil && !b.removed {
		if u, err := b.group.Usage(); err == nil {
			b.usage = usageOf(u)
		}
	}
	if b.usage != nil {
		u := *b.usage
		r.Usage = &u
	}
	return r
}

// noteExit decides, from how the root ended and what it used, whether a
// limit ended the session.
func (b *box) noteExit(ex Exit, ru rootUsage) {
	if b == nil {
		return
	}
	l := b.report.Limits
	by := ""
	switch {
	case ex.Signal == syscall.SIGXCPU:
		by = contain.EndedByCPU
	case ex.Signal == syscall.SIGXFSZ:
		by = contain.EndedByFileSize
	case ex.Signal == syscall.SIGKILL && l.CPUSeconds > 0 && ru.cpu >= time.Duration(l.CPUSeconds)*time.Second:
		by = contain.EndedByCPU
	case l.AddressSpace > 0 && (ex.Code != 0 || ex.Signal != 0) && ru.maxRSS >= l.AddressSpace/2:
		// The kernel refuses allocations above RLIMIT_AS without a
		// signal; a root that failed with most of its limit resident
		// ran into it.
		by = contain.EndedByMemory
	}
	if b.group != nil {
		if u, err := b.group.Usage(); err == nil && u.OOMKills > 0 {
			by = contain.EndedByMemory
		}
	}
	b.mu.Lock()
	b.endedBy = by
	b.mu.Unlock()
}

// rootUsage is what the root process itself used, from its wait.
type rootUsage struct {
	cpu    time.Duration // user + system
	maxRSS int64         // bytes
}

// Containment reports how the tree is held; without a box, by parentage.
func (t *localTree) Containment() contain.Report {
	r := contain.Report{Kind: contain.KindProcessTree, Reason: "containment is not configured"}
	if t.box != nil {
		r = t.box.snapshot()
	}
	r.Keeper = t.kept != nil
	r.Tracked = t.tracker != nil
	if t.tracker != nil && r.Usage == nil {
		r.Usage = &contain.Usage{MemoryCurrent: -1, MemoryPeak: -1, CPUUsec: -1, Processes: t.tracker.Len(), OOMKills: -1}
	}
	return r
}
