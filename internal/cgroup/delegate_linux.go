//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// delegationFiles are the files a delegated group hands its owner
// (systemd's Delegate=yes chowns exactly these and the directory).
var delegationFiles = []string{"cgroup.procs", "cgroup.subtree_control", "cgroup.threads"}

// delegated returns nil when dir and its delegation files belong to this
// process's effective uid and it may write them: a subtree it may manage.
func delegated(dir string) error {
	uid := os.Geteuid()
	for _, p := range append([]string{dir}, prefixed(dir, delegationFiles)...) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
			return fmt.Errorf("%s belongs to uid %d, not %d", p, st.Uid, uid)
		}
		if err := syscall.Access(p, 2); err != nil { // W_OK
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

func prefixed(dir string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(dir, n)
	}
	return out
}

// leaf is where Open moved agentty's own processes, to be undone at Close.
type leaf struct {
	own     string   // the delegated group agentty was in
	dir     string   // own/LeafName
	enabled []string // controllers Open turned on in own's subtree_control
}

// openDelegated uses the delegated subtree own as a non-root agentty: its
// own processes move into a leaf, then controllers are enabled for own's
// children and the sessions' parent is made beside the leaf.
func openDelegated(own, name, via string) (*Parent, error) {
	lf := &leaf{own: own, dir: filepath.Join(own, LeafName(name))}
	if err := os.Mkdir(lf.dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%w: cannot create %s in the delegated %s: %v", ErrUnavailable, lf.dir, own, err)
	}
	moved, err := moveOwn(own, lf.dir)
	if err != nil {
		lf.undo()
		return nil, fmt.Errorf("%w: cannot move agentty into %s: %v", ErrUnavailable, lf.dir, err)
	}
	dir := filepath.Join(own, name)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		lf.undo()
		return nil, fmt.Errorf("%w: cannot create %s: %v", ErrUnavailable, dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		_ = os.Remove(dir)
		lf.undo()
		return nil, fmt.Errorf("%w: no cgroup.kill in %s (kernel 5.14+ needed)", ErrUnavailable, dir)
	}
	before := fields(filepath.Join(own, "cgroup.subtree_control"))
	p := &Parent{dir: dir, leaf: lf}
	p.controllers, p.note = enable(own, dir)
	for _, c := range p.controllers {
		if !slices.Contains(before, c) {
			lf.enabled = append(lf.enabled, c)
		}
	}
	if others, _ := procsOf(own); len(others) > 0 && len(p.controllers) < 3 {
		p.note = strings.TrimPrefix(p.note+fmt.Sprintf("; %s holds processes agentty did not start (%v), so the kernel gives its children no controllers", own, others), "; ")
	}
	p.via = fmt.Sprintf("%s (delegated; agentty's %d process(es) moved into %s)", via, moved, lf.dir)
	return p, nil
}

// moveOwn moves this process and its children that share its group from
// own into dir (the guard among them), and returns how many moved. Other
// processes in own are not agentty's to move.
func moveOwn(own, dir string) (int, error) {
	self := os.Getpid()
	pids, err := procsOf(own)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, pid := range pids {
		if pid != self && ppid(pid) != self {
			continue
		}
		if err := write(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
			if pid == self || !errors.Is(err, syscall.ESRCH) {
				return n, fmt.Errorf("pid %d: %w", pid, err)
			}
			continue
		}
		n++
	}
	return n, nil
}

// undo moves everything in the leaf back to own, turns off the
// controllers Open enabled there (the kernel refuses processes in a group
// that hands controllers to children) and removes the leaf.
func (lf *leaf) undo() error {
	var errs []error
	for _, c := range slices.Backward(lf.enabled) {
		if err := write(filepath.Join(lf.own, "cgroup.subtree_control"), "-"+c); err != nil {
			errs = append(errs, fmt.Errorf("disable %s in %s: %w", c, lf.own, err))
		}
	}
	lf.enabled = nil
	pids, _ := procsOf(lf.dir)
	for _, pid := range pids {
		if err := write(filepath.Join(lf.own, "cgroup.procs"), strconv.Itoa(pid)); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, fmt.Errorf("move pid %d back to %s: %w", pid, lf.own, err))
		}
	}
	if err := os.Remove(lf.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// procsOf lists the processes in a group.
func procsOf(dir string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out, nil
}

// ppid reads a process's parent from /proc/PID/stat (0 if it is gone).
func ppid(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}
