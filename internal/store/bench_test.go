package store

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/history"
	"github.com/agentty/agentty/internal/outlog"
)

// chunk is one pump read's worth of line-structured output.
func benchChunk() []byte {
	b := lines(1, 10000)
	return b[:64<<10]
}

func dirBytes(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if fi, err := d.Info(); err == nil && !d.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkIngest compares how fast output can be taken in: memory only
// (--no-store), the store (segment files plus a SQLite index, what agentty
// uses), and plain appends to one file (the floor: no index, no
// transactions, no memory copy). disk/B is bytes on disk per byte of output.
func BenchmarkIngest(b *testing.B) {
	p := benchChunk()
	b.Run("memory", func(b *testing.B) {
		l := outlog.NewMemory(16 << 20)
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			l.Append(outlog.Stdout, p)
		}
	})
	b.Run("store", func(b *testing.B) {
		dir := b.TempDir()
		s, err := Open(dir, &Options{MaxSessionBytes: 1 << 40, MaxTotalBytes: 1 << 40})
		if err != nil {
			b.Fatal(err)
		}
		l := startSession(s, "s1", 16<<20)
		b.SetBytes(int64(len(p)))
		t0 := time.Now()
		for b.Loop() {
			l.Append(outlog.Stdout, p)
		}
		s.Sync(10 * time.Minute)
		s.Sync(10 * time.Minute) // the second commits a gap closed by the first
		if !s.Sync(10 * time.Minute) {
			b.Fatal("sync")
		}
		el := time.Since(t0)
		b.StopTimer()
		total := int64(b.N) * int64(len(p))
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		var gaps int64
		s2, _ := Open(dir, nil)
		_ = s2.db.QueryRow(`SELECT COALESCE(SUM(size),0) FROM records WHERE event='gap'`).Scan(&gaps)
		s2.Close()
		b.ReportMetric(float64(dirBytes(b, dir))/float64(total), "disk/B")
		b.ReportMetric(float64(gaps)/float64(total), "gap/B")
		b.ReportMetric(float64(total-gaps)/1e6/el.Seconds(), "durable-MB/s")
	})
	b.Run("segment-file", func(b *testing.B) {
		dir := b.TempDir()
		f, err := os.Create(filepath.Join(dir, "seg"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			if _, err := f.Write(p); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(dirBytes(b, dir))/float64(int64(b.N)*int64(len(p))), "disk/B")
	})
}

// historyBytes is the transcript size for BenchmarkHistory: 1 GiB, or
// AGENTTY_BENCH_HISTORY_MB megabytes.
func historyBytes() int64 {
	if mb, err := strconv.Atoi(os.Getenv("AGENTTY_BENCH_HISTORY_MB")); err == nil && mb > 0 {
		return int64(mb) << 20
	}
	return 1 << 30
}

// BenchmarkHistory measures get_history on a 1 GiB transcript read back
// from disk (a past session): the last 100 lines, 100 lines from the
// middle, and a grep over the whole transcript.
func BenchmarkHistory(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir, &Options{MaxSessionBytes: 2 << 30, MaxTotalBytes: 4 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l := startSession(s, "s1", 16<<20)
	var n int64
	size := historyBytes()
	for i := 0; n < size; i++ {
		chunk := []byte(fmt.Sprintf("%010d some build output that goes on for a while, step %d of many\n", i, i))
		for len(chunk) < 64<<10 {
			i++
			chunk = fmt.Appendf(chunk, "%010d some build output that goes on for a while, step %d of many\n", i, i)
		}
		l.Append(outlog.Stdout, chunk)
		n += int64(len(chunk))
		if i%2000 == 0 {
			s.Sync(time.Minute)
		}
	}
	l.CloseWrite()
	s.Sync(10 * time.Minute)
	past, err := s.OpenLog("s1")
	if err != nil {
		b.Fatal(err)
	}
	total := past.Stats().Lines
	b.Run("tail100", func(b *testing.B) {
		for b.Loop() {
			h := history.Get(past, history.Query{Count: 100})
			if len(h.Lines) != 100 || h.LastLine != total {
				b.Fatalf("got %d lines ending %d, want 100 ending %d", len(h.Lines), h.LastLine, total)
			}
		}
	})
	b.Run("middle100", func(b *testing.B) {
		for b.Loop() {
			h := history.Get(past, history.Query{StartLine: total / 2, Count: 100})
			if len(h.Lines) != 100 || h.FirstLine != total/2 {
				b.Fatalf("got %d lines from %d", len(h.Lines), h.FirstLine)
			}
		}
	})
	b.Run("grep-all", func(b *testing.B) {
		re := regexp.MustCompile(`^0000123456 `)
		for b.Loop() {
			h := history.Get(past, history.Query{Grep: re})
			if h.Matches != 1 {
				b.Fatalf("%d matches", h.Matches)
			}
		}
		b.SetBytes(n)
	})
}
