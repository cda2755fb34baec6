//go:build linux

package cgroup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// ParentName is the name of an agentty instance's parent group.
func ParentName(instance string) string { return "agentty-" + instance }

// Sweep kills every group below this process's cgroup's child name, waits
// for each to empty (up to wait in all) and removes them and the parent:
// what the guard does for a server that died without closing its groups.
// A parent that does not exist is nothing to do.
func Sweep(name string, wait time.Duration) error {
	own, err := Self()
	if err != nil {
		return err
	}
	dir := filepath.Join(own, name)
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
