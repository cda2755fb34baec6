//go:build linux

package cgroup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Group is one session's cgroup.
type Group struct {
	dir string
	fd  int // open O_DIRECTORY descriptor for CLONE_INTO_CGROUP; -1 after CloseFD
}

// New creates the group name below p and applies limits whose controller
// is enabled. A limit whose controller is missing is an error: the caller
// decides beforehand (Parent.Controllers) whether to ask.
func (p *Parent) New(name string, l Limits) (*Group, error) {
	dir := filepath.Join(p.dir, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create cgroup %s: %w", dir, err)
	}
	g := &Group{dir: dir, fd: -1}
	if err := g.setLimits(l, p.controllers); err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("open cgroup %s: %w", dir, err)
	}
	g.fd = fd
	return g, nil
}

// setLimits writes each non-zero limit to its interface file.
func (g *Group) setLimits(l Limits, enabled []string) error {
	type set struct {
		ctl, file, val string
		on             bool
	}
	sets := []set{
		{Memory, "memory.high", strconv.FormatInt(l.MemoryHigh, 10), l.MemoryHigh > 0},
		{Memory, "memory.max", strconv.FormatInt(l.MemoryMax, 10), l.MemoryMax > 0},
		{Memory, "memory.swap.max", "0", l.MemoryMax > 0},
		{Pids, "pids.max", strconv.FormatInt(l.PidsMax, 10), l.PidsMax > 0},
		{CPU, "cpu.max", fmt.Sprintf("%d 100000", l.CPUPercent*1000), l.CPUPercent > 0},
	}
	for _, s := range sets {
		if !s.on {
			continue
		}
		if !slices.Contains(enabled, s.ctl) {
			return fmt.Errorf("%w: the %s controller is not enabled for %s", ErrUnavailable, s.ctl, filepath.Dir(g.dir))
		}
		err := write(filepath.Join(g.dir, s.file), s.val)
		if err != nil && !(s.file == "memory.swap.max" && errors.Is(err, os.ErrNotExist)) {
			return fmt.Errorf("set %s=%s: %w", s.file, s.val, err)
		}
	}
	return nil
}

// Dir is the group's directory.
func (g *Group) Dir() string { return g.dir }

// FD is the directory descriptor for SysProcAttr.CgroupFD.
func (g *Group) FD() int { return g.fd }

// CloseFD closes the directory descriptor once the child is placed.
func (g *Group) CloseFD() {
	if g.fd >= 0 {
		unix.Close(g.fd)
		g.fd = -1
	}
}

// Join moves pid into the group, for kernels that cannot clone into it.
func (g *Group) Join(pid int) error {
	return write(filepath.Join(g.dir, "cgroup.procs"), strconv.Itoa(pid))
}

// Procs lists the processes in the group.
func (g *Group) Procs() ([]int, error) { return procsOf(g.dir) }

// gone reports an error that says the group no longer exists: removed
// (ENOENT), or being removed while its file was open (the kernel answers
// reads and writes of a group in rmdir with ENODEV). Only an empty group
// can be removed, so a gone group holds no process.
func gone(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ENODEV)
}

// Populated reports whether any process is in the group or below it; a
// group that no longer exists is not populated.
func (g *Group) Populated() (bool, error) {
	v, err := keyed(filepath.Join(g.dir, "cgroup.events"), "populated")
	if gone(err) {
		return false, nil
	}
	return v != 0, err
}

// Kill SIGKILLs every process in the group at once (cgroup.kill); a group
// already removed, or being removed, has nothing to kill.
func (g *Group) Kill() error {
	err := write(filepath.Join(g.dir, "cgroup.kill"), "1")
	if gone(err) {
		return nil
	}
	return err
}

// Signal sends sig to every process in the group.
func (g *Group) Signal(sig syscall.Signal) error {
	pids, err := g.Procs()
	if gone(err) {
		return nil
	}
	for _, pid := range pids {
		_ = unix.Kill(pid, sig)
	}
	return err
}

// WaitEmpty returns once the group is not populated, woken by inotify on
// cgroup.events (the kernel signals a modification when populated
// changes), or ErrNotEmpty when ctx ends first.
func (g *Group) WaitEmpty(ctx context.Context) error {
	// An empty group needs no watch: closing an inotify instance that
	// had one waits for an SRCU grace period, milliseconds.
	if pop, err := g.Populated(); err != nil || !pop {
		return err
	}
	in, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return g.pollEmpty(ctx)
	}
	defer unix.Close(in)
	if _, err := unix.InotifyAddWatch(in, filepath.Join(g.dir, "cgroup.events"), unix.IN_MODIFY); err != nil {
		if gone(err) {
			return nil
		}
		return g.pollEmpty(ctx)
	}
	buf := make([]byte, 4096)
	for {
		// Read after arming the watch, so a change between the two wakes us.
		if pop, err := g.Populated(); err != nil || !pop {
			return err
		}
		wait := 100 * time.Millisecond // re-read now and then: belt and braces
		if dl, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(dl))
		}
		if ctx.Err() != nil || wait <= 0 {
			return fmt.Errorf("%w: %s", ErrNotEmpty, g.dir)
		}
		fds := []unix.PollFd{{Fd: int32(in), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, int(wait.Milliseconds())+1); err != nil && !errors.Is(err, unix.EINTR) {
			return g.pollEmpty(ctx)
		}
		for {
			if n, err := unix.Read(in, buf); n <= 0 || err != nil {
				break
			}
		}
	}
}

// pollEmpty is WaitEmpty without inotify.
func (g *Group) pollEmpty(ctx context.Context) error {
	for d := time.Millisecond; ; d = min(2*d, 50*time.Millisecond) {
		if pop, err := g.Populated(); err != nil || !pop {
			return err
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %s", ErrNotEmpty, g.dir)
		case <-t.C:
		}
	}
}

// Remove deletes the group's directory; it fails while it is populated.
// Removing a group that is gone is not an error.
func (g *Group) Remove() error {
	g.CloseFD()
	err := os.Remove(g.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// Usage reads what the group used so far.
func (g *Group) Usage() (Usage, error) {
	u := Usage{MemoryCurrent: -1, MemoryPeak: -1, CPUUsec: -1, OOMKills: -1, PidsMaxHits: -1}
	pids, err := g.Procs()
	if err != nil {
		return u, err
	}
	u.Processes = len(pids)
	u.MemoryCurrent = single(filepath.Join(g.dir, "memory.current"))
	u.MemoryPeak = single(filepath.Join(g.dir, "memory.peak"))
	if v, err := keyed(filepath.Join(g.dir, "cpu.stat"), "usage_usec"); err == nil {
		u.CPUUsec = v
	}
	if v, err := keyed(filepath.Join(g.dir, "memory.events"), "oom_kill"); err == nil {
		u.OOMKills = v
	}
	if v, err := keyed(filepath.Join(g.dir, "pids.events"), "max"); err == nil {
		u.PidsMaxHits = v
	}
	return u, nil
}

// single reads a one-number interface file, -1 when absent or "max".
func single(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return -1
	}
	return v
}

// keyed reads the value of key from a flat-keyed file ("key value" lines).
func keyed(path, key string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no %q", path, key)
}
