//go:build linux

package proctree

import "time"

// trackEvery is how often Linux's portable tree (AGENTTY_PORTABLE=tree)
// lists /proc for the trackers. Linux tells no one of a fork without the
// proc connector (root only) or ptrace, so the list is taken on a clock,
// one pass for all sessions and only while one is tracked: about 9 µs of
// CPU per process on the machine (BenchmarkListProcs: 1.0 ms for 116), so
// 1% of one CPU per 100 processes at this period.
const trackEvery = 100 * time.Millisecond

var scans = newScanLoop(trackEvery, listProcs, nil)
