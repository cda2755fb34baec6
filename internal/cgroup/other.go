//go:build !linux

package cgroup

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"time"
)

// notLinux says why there is no cgroup here, for get_policy's notes.
func notLinux() string {
	if runtime.GOOS == "darwin" {
		return "macOS has no cgroups"
	}
	return "not Linux"
}

// Parent is unavailable outside Linux.
type Parent struct{}

// Group is unavailable outside Linux.
type Group struct{}

// Open reports that cgroups exist only on Linux.
func Open(string) (*Parent, error) { return nil, fmt.Errorf("%w: %s", ErrUnavailable, notLinux()) }

// OpenWith reports that cgroups exist only on Linux.
func OpenWith(string, Options) (*Parent, error) {
	return nil, fmt.Errorf("%w: %s", ErrUnavailable, notLinux())
}

// Self reports that cgroups exist only on Linux.
func Self() (string, error) { return "", fmt.Errorf("%w: %s", ErrUnavailable, notLinux()) }

// Of reports that cgroups exist only on Linux.
func Of(int) (string, error) { return "", fmt.Errorf("%w: %s", ErrUnavailable, notLinux()) }

func (p *Parent) New(string, Limits) (*Group, error) { return nil, ErrUnavailable }
func (p *Parent) Dir() string                        { return "" }
func (p *Parent) Controllers() []string              { return nil }
func (p *Parent) Note() string                       { return "" }
func (p *Parent) Via() string                        { return "" }
func (p *Parent) Close() error                       { return nil }

func (g *Group) Dir() string                     { return "" }
func (g *Group) FD() int                         { return -1 }
func (g *Group) CloseFD()                        {}
func (g *Group) Join(int) error                  { return ErrUnavailable }
func (g *Group) Procs() ([]int, error)           { return nil, ErrUnavailable }
func (g *Group) Populated() (bool, error)        { return false, nil }
func (g *Group) Kill() error                     { return nil }
func (g *Group) Signal(syscall.Signal) error     { return nil }
func (g *Group) WaitEmpty(context.Context) error { return nil }
func (g *Group) Remove() error                   { return nil }
func (g *Group) Usage() (Usage, error)           { return Usage{}, ErrUnavailable }

// ParentName is the name of an agentty instance's parent group.
func ParentName(instance string) string { return "agentty-" + instance }

// Sweep has nothing to do outside Linux.
func Sweep(string, time.Duration) error { return nil }
