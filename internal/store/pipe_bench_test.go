//go:build unix

package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
)

// pipeBenchBytes is what one BenchmarkPipeIngest op produces: 64 MB, or
// AGENTTY_BENCH_PIPE_MB megabytes.
func pipeBenchBytes() int64 {
	if mb, err := strconv.Atoi(os.Getenv("AGENTTY_BENCH_PIPE_MB")); err == nil && mb > 0 {
		return int64(mb) * 1e6
	}
	return 64e6
}

// pipeIngest runs the pipeline agentty bench times (`yes … | head -c
// size`) and appends its stdout to l as the pipe pump does: 64 KiB reads.
func pipeIngest(b *testing.B, l outlog.Log, size int64) {
	cmd := exec.Command("sh", "-c", fmt.Sprintf("yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c %d", size))
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	var n int64
	for {
		k, err := out.Read(buf)
		if k > 0 {
			l.Append(outlog.Stdout, buf[:k])
			n += int64(k)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := cmd.Wait(); err != nil || n != size {
		b.Fatalf("pipeline: %d bytes, %v", n, err)
	}
}

// cpuTime is this process's user+system CPU time so far (children not
// included): what ingest costs the server beside the program's own work.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPipeIngest is the bench's pipe ingest row in one process: the
// pipeline's output taken in by a memory-only log (-no-store) and by a
// store-backed one until it is committed. cpu-ns/B is this process's CPU
// per byte, what competes with the program on a small machine; gap/B must
// stay 0.
func BenchmarkPipeIngest(b *testing.B) {
	size := pipeBenchBytes()
	b.Run("no-store", func(b *testing.B) {
		b.SetBytes(size)
		c0 := cpuTime(b)
		for b.Loop() {
			pipeIngest(b, outlog.NewMemory(outlog.DefaultLimit), size)
		}
		b.ReportMetric(float64(cpuTime(b)-c0)/float64(size*int64(b.N)), "cpu-ns/B")
	})
	b.Run("store", func(b *testing.B) {
		dir := b.TempDir()
		s, err := Open(dir, &Options{MaxSessionBytes: 1 << 40, MaxTotalBytes: 1 << 40})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.SetBytes(size)
		c0 := cpuTime(b)
		i := 0
		for b.Loop() {
			i++
			l := startSession(s, fmt.Sprintf("s%d", i), outlog.DefaultLimit)
			pipeIngest(b, l, size)
			l.CloseWrite()
			if !s.Sync(time.Minute) {
				b.Fatal("sync")
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(cpuTime(b)-c0)/float64(size*int64(b.N)), "cpu-ns/B")
		var gaps int64
		if err := s.db.QueryRow(`SELECT COALESCE(SUM(size),0) FROM records WHERE event='gap'`).Scan(&gaps); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(gaps)/float64(size*int64(b.N)), "gap/B")
	})
}
