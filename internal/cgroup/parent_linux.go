//go:build linux

package cgroup

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Parent is the cgroup directory agentty creates its sessions' groups in.
type Parent struct {
	dir         string   // absolute path in the cgroup2 mount
	controllers []string // enabled for session groups
	note        string   // why wanted controllers are missing, "" if none
	via         string   // how agentty got the subtree, for reports
	leaf        *leaf    // where agentty moved itself; nil as root
}

// delegateWait bounds the request for a delegated group (a D-Bus round
// trip and a systemd job).
const delegateWait = 5 * time.Second

// Open creates dir name below the cgroup agentty runs in and enables
// whichever of memory, pids and cpu its cgroup offers. Missing controllers
// are not an error (Controllers and Note say so); no cgroup2 mount or no
// write access is ErrUnavailable with the reason.
func Open(name string) (*Parent, error) { return OpenWith(name, Options{}) }

// OpenWith is Open with a way to get a delegated subtree. As root agentty
// creates its subtree where it runs. Otherwise it needs a delegated group:
// its own (systemd's Delegate=yes), or one o.Delegator makes; agentty then
// moves its own processes into a leaf (LeafName) so that the group may
// hand controllers to its children, and Close moves them back.
func OpenWith(name string, o Options) (*Parent, error) {
	own, err := Self()
	if err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		return openHere(own, name)
	}
	derr := delegated(own)
	if derr == nil {
		return openDelegated(own, name, own)
	}
	why := fmt.Sprintf("agentty is not root and its cgroup %s is not delegated to it (%v)", own, derr)
	if o.Delegator == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), delegateWait)
	defer cancel()
	made, err := o.Delegator.Delegate(ctx, []int{os.Getpid()})
	if err != nil {
		return nil, fmt.Errorf("%w: %s; %v", ErrUnavailable, why, err)
	}
	own, err = Self()
	if err != nil {
		return nil, err
	}
	if err := delegated(own); err != nil {
		return nil, fmt.Errorf("%w: %s; %s put agentty in %s, which is not delegated either: %v", ErrUnavailable, why, made, own, err)
	}
	return openDelegated(own, name, made)
}

// openHere is a root agentty's subtree, made in the group it runs in.
func openHere(own, name string) (*Parent, error) {
	dir := filepath.Join(own, name)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%w: cannot create %s: %v", ErrUnavailable, dir, err)
	}
	// The root group has no cgroup.kill; every other group has it from 5.14.
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("%w: no cgroup.kill in %s (kernel 5.14+ needed)", ErrUnavailable, dir)
	}
	p := &Parent{dir: dir, via: "root"}
	p.controllers, p.note = enable(own, dir)
	return p, nil
}

// enable turns on the wanted controllers for own's children and then for
// dir's, returning those dir's children get and why any is missing. In a
// non-root cgroup that holds processes (agentty itself) the kernel refuses
// (EBUSY, the "no internal processes" rule): agentty then needs a delegated
// subtree it is not a member of.
func enable(own, dir string) ([]string, string) {
	offered := fields(filepath.Join(own, "cgroup.controllers"))
	var got, missing []string
	var why []string
	for _, c := range []string{Memory, Pids, CPU} {
		if !slices.Contains(offered, c) {
			missing = append(missing, c)
			continue
		}
		err := write(filepath.Join(own, "cgroup.subtree_control"), "+"+c)
		if err == nil {
			err = write(filepath.Join(dir, "cgroup.subtree_control"), "+"+c)
		}
		if err != nil {
			why = append(why, fmt.Sprintf("%s: %v", c, err))
			continue
		}
		got = append(got, c)
	}
	if len(missing) > 0 {
		why = append([]string{fmt.Sprintf("not offered to %s: %s", own, strings.Join(missing, ", "))}, why...)
	}
	return got, strings.Join(why, "; ")
}

// Dir is the parent's directory.
func (p *Parent) Dir() string { return p.dir }

// Controllers are the controllers enabled for session groups.
func (p *Parent) Controllers() []string { return slices.Clone(p.controllers) }

// Note says why a wanted controller is not enabled ("" when all are).
func (p *Parent) Note() string { return p.note }

// Via says how agentty got its subtree: "root", or the delegated group
// (its own, or the systemd scope made for it) and where agentty moved.
func (p *Parent) Via() string { return p.via }

// Close removes the parent directory, which fails while any group is
// left, and then undoes the move into the leaf.
func (p *Parent) Close() error {
	if err := os.Remove(p.dir); err != nil {
		return err
	}
	if p.leaf != nil {
		return p.leaf.undo()
	}
	return nil
}

// Self returns the absolute directory of the cgroup v2 group this process
// is in, from /proc/self/cgroup and the cgroup2 mount in mountinfo.
func Self() (string, error) { return dirOf("self", mount) }

// Of is Self for process pid. The cgroup2 mount is read once.
func Of(pid int) (string, error) {
	return dirOf(strconv.Itoa(pid), func() (string, string, error) {
		m := mounted()
		return m.point, m.root, m.err
	})
}

type mountInfo struct {
	point, root string
	err         error
}

var mounted = sync.OnceValue(func() (m mountInfo) {
	m.point, m.root, m.err = mount()
	return m
})

func dirOf(proc string, mount func() (string, string, error)) (string, error) {
	b, err := os.ReadFile("/proc/" + proc + "/cgroup")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	var rel string
	found := false
	for line := range strings.Lines(string(b)) {
		if r, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			rel, found = r, true
		}
	}
	if !found {
		return "", fmt.Errorf("%w: process %s is in no cgroup v2 group (its cgroup file has no 0:: line)", ErrUnavailable, proc)
	}
	mnt, root, err := mount()
	if err != nil {
		return "", err
	}
	if root != "/" {
		r, ok := strings.CutPrefix(rel, root)
		if !ok {
			return "", fmt.Errorf("%w: cgroup %s is outside the mounted subtree %s", ErrUnavailable, rel, root)
		}
		rel = r
	}
	return filepath.Join(mnt, rel), nil
}

// mount finds the first cgroup2 mount: its mount point and the root of the
// hierarchy it shows.
func mount() (point, root string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root point options [optional...] - fstype source super
		line := sc.Text()
		pre, post, ok := strings.Cut(line, " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		fs := strings.Fields(pre)
		if len(fs) < 5 {
			continue
		}
		return unescape(fs[4]), unescape(fs[3]), nil
	}
	return "", "", fmt.Errorf("%w: no cgroup2 file system is mounted", ErrUnavailable)
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v byte
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &v); err == nil {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// fields reads a space-separated interface file ("" entries dropped).
func fields(path string) []string {
	b, _ := os.ReadFile(path)
	return strings.Fields(string(bytes.TrimSpace(b)))
}

// write writes one value to an interface file.
func write(path, v string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(v)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
