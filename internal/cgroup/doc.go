// Package cgroup gives each session its own cgroup v2 group, so membership
// is exact (no escape by double fork, setsid or reparenting), the whole tree
// ends with one write to cgroup.kill, and "nothing is left" is read from
// cgroup.events instead of scanning /proc.
//
// A Parent is agentty's subtree: a directory below the cgroup agentty runs
// in, created once per server, in which every session gets a Group. Limits
// (memory.max, memory.high, pids.max, cpu.max) apply only where the
// controller is enabled for the subtree; Parent.Controllers says which are.
// Only cgroup v2 is used: v1 hierarchies have no cgroup.kill and no
// populated notification.
package cgroup

import (
	"context"
	"errors"
)

// Errors callers branch on.
var (
	// ErrUnavailable wraps every reason no cgroup can be made here: no
	// cgroup2 mount, no write access to agentty's own cgroup.
	ErrUnavailable = errors.New("cgroup v2 unavailable")
	// ErrNotEmpty is returned by WaitEmpty when the group still has
	// processes at the deadline.
	ErrNotEmpty = errors.New("cgroup still populated")
)

// Controllers agentty may use for limits.
const (
	Memory = "memory"
	Pids   = "pids"
	CPU    = "cpu"
)

// Limits are the controller limits of one group; zero means unlimited.
type Limits struct {
	MemoryMax  int64 // memory.max, bytes: the OOM killer acts above it
	MemoryHigh int64 // memory.high, bytes: reclaim and throttling start here
	PidsMax    int64 // pids.max: fork fails beyond it
	// CPUPercent caps CPU time to this share of one CPU (cpu.max quota
	// per 100 ms period); 200 is two CPUs.
	CPUPercent int
}

// Usage is what a group used, read from its interface files. Fields whose
// controller is not enabled are -1.
type Usage struct {
	MemoryCurrent int64 // memory.current
	MemoryPeak    int64 // memory.peak (kernel 5.19+)
	CPUUsec       int64 // cpu.stat usage_usec (always present)
	Processes     int   // lines of cgroup.procs
	OOMKills      int64 // memory.events oom_kill
	PidsMaxHits   int64 // pids.events max: forks refused
}

// LeafName is the group agentty moves itself into inside a delegated
// subtree: a cgroup holding processes cannot give its children controllers
// (the kernel's "no internal processes" rule), so agentty's own processes
// leave the subtree's top for this leaf, beside its sessions' parent.
func LeafName(parent string) string { return parent + ".server" }

// Delegator puts this process into a new cgroup delegated to its user when
// its own is not: a systemd transient scope with Delegate=yes.
type Delegator interface {
	// Delegate moves pids into the new group and says what it made (for
	// reports, e.g. `systemd scope agentty-1a2b.scope`).
	Delegate(ctx context.Context, pids []int) (string, error)
}

// Options change how Open finds agentty's subtree.
type Options struct {
	// Delegator is asked for a delegated group when agentty is not root
	// and its own group is not delegated; nil: no cgroups then.
	Delegator Delegator
}
