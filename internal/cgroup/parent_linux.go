//go:build linux

package cgroup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Parent is the cgroup directory agentty creates its sessions' groups in.
type Parent struct {
	dir         string   // absolute path in the cgroup2 mount
	controllers []string // enabled for session groups
	note        string   // why wanted controllers are missing, "" if none
}

// Open creates dir name below the cgroup agentty runs in and enables
// whichever of memory, pids and cpu its cgroup offers. Missing controllers
// are not an error (Controllers and Note say so); no cgroup2 mount or no
// write access is ErrUnavailable with the reason.
func Open(name string) (*Parent, error) {
	own, err := Self()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(own, name)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%w: cannot create %s: %v", ErrUnavailable, dir, err)
	}
	// The root group has no cgroup.kill; every other group has it from 5.14.
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("%w: no cgroup.kill in %s (kernel 5.14+ needed)", ErrUnavailable, dir)
	}
	p := &Parent{dir: dir}
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

// Close removes the parent directory; it fails while any group is left.
func (p *Parent) Close() error { return os.Remove(p.dir) }

// Self returns the absolute directory of the cgroup v2 group this process
// is in, from /proc/self/cgroup and the cgroup2 mount in mountinfo.
func Self() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
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
		return "", fmt.Errorf("%w: this process is in no cgroup v2 group (/proc/self/cgroup has no 0:: line)", ErrUnavailable)
	}
	mnt, root, err := mount()
	if err != nil {
		return "", err
	}
	if root != "/" {
		r, ok := strings.CutPrefix(rel, root)
		if !ok {
			return "", fmt.Errorf("%w: own cgroup %s is outside the mounted subtree %s", ErrUnavailable, rel, root)
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
