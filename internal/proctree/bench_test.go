//go:build linux

package proctree

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkDescendants measures the per-call cost of finding a small marked
// tree; the marker scan reads every process's environment, so it grows with
// the number of processes on the machine.
func BenchmarkDescendants(b *testing.B) {
	c := startMarked(b, "sleep 1000 & setsid sleep 1000 & wait")
	waitTree(b, c.pid(), c.entry, "sh", "sleep", "sleep")
	for _, bm := range []struct{ name, marker string }{
		{"marker", c.entry},
		{"treeOnly", ""},
	} {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Descendants(c.pid(), bm.marker); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSpawnerDo(b *testing.B) {
	sp := NewSpawner()
	defer sp.Close()
	for b.Loop() {
		sp.Do(func() {})
	}
}

// BenchmarkListProcs is one pass of the portable tree's clock
// (trackEvery): every process's stat. It reports the CPU time a pass takes
// (cpu-ns/op, which a loaded machine does not inflate as it does wall
// time) and how many processes there were.
func BenchmarkListProcs(b *testing.B) {
	var l procLister
	var n int
	cpu := func() time.Duration {
		var ru unix.Rusage
		_ = unix.Getrusage(unix.RUSAGE_THREAD, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := cpu()
	for b.Loop() {
		procs, err := l.list()
		if err != nil {
			b.Fatal(err)
		}
		n = len(procs)
	}
	b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(n), "procs")
}
