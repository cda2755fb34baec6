//go:build linux

package cgroup

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ParentName is the name of an agentty instance's parent group.
func ParentName(instance string) string { return "agentty-" + instance }

// Sweep kills every group below agentty's parent group name (see find),
// waits for each to empty (up to wait in all) and removes them and the
// parent: what the guard does for a server that died without closing its
// groups. A parent that does not exist is nothing to do.
func Sweep(name string, wait time.Duration) error {
	dir, err := find(name)
	if err != nil || dir == "" {
		return err
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var errs []error
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		g := &Group{dir: filepath.Join(dir, e.Name()), fd: -1}
		if err := g.Kill(); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := g.WaitEmpty(ctx); err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, g.Remove())
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// find locates the parent group name of the agentty that started this
// process (the guard): below this process's group, beside it (a non-root
// agentty moved both into its leaf), or, after agentty moved into a systemd
// scope, anywhere in the cgroup2 mount (names hold a random instance id).
// It returns "" when there is none.
func find(name string) (string, error) {
	own, err := Self()
	if err != nil {
		return "", err
	}
	for _, d := range []string{filepath.Join(own, name), filepath.Join(filepath.Dir(own), name)} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d, nil
		}
	}
	mnt, _, err := mount()
	if err != nil {
		return "", err
	}
	found := ""
	_ = filepath.WalkDir(mnt, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || !d.IsDir():
			return nil
		case d.Name() == name:
			found = p
			return fs.SkipAll
		}
		return nil
	})
	return found, nil
}
