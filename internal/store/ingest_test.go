package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
)

// readStream reads all of l's bytes of one stream from offset 0.
func readStream(t *testing.T, l outlog.Log, s outlog.Stream) []byte {
	t.Helper()
	var out []byte
	for at := int64(0); ; {
		sl := l.Read(at, -1, 1<<16, s)
		if sl.LostBytes != 0 {
			t.Fatalf("read at %d: %d bytes lost", at, sl.LostBytes)
		}
		out = append(out, sl.Data...)
		if sl.Next == at {
			return out
		}
		at = sl.Next
	}
}

// pumpOutput appends want to l in varied sizes from one reused buffer, as
// a pump does, and returns when all is appended.
func pumpOutput(l *Log, s outlog.Stream, want []byte, sizes []int) {
	buf := make([]byte, 70<<10)
	for i, p := 0, want; len(p) > 0; i++ {
		n := copy(buf[:min(len(p), sizes[i%len(sizes)])], p)
		l.Append(s, buf[:n])
		clear(buf[:n]) // the next read overwrites it
		p = p[n:]
	}
}

// TestLog_IngestStoredExactly: output taken in while the writer commits
// (and while memory evicts what is still queued) is on disk byte for byte,
// per stream, with exact line counts, no gap, and records of at most
// maxChunk whose sizes add up to the output.
func TestLog_IngestStoredExactly(t *testing.T) {
	cases := []struct {
		name   string
		commit time.Duration
		syncer bool // a reader forcing commits while output arrives
	}{
		// Memory keeps 64 KiB; nothing commits until the end, so what is
		// written comes from evicted blocks.
		{"evicted before the commit", time.Hour, false},
		{"commits while output arrives", time.Millisecond, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for round := range 5 {
				dir := t.TempDir()
				s := openTest(t, dir, &Options{CommitInterval: c.commit})
				sid := fmt.Sprintf("s%d", round)
				l := startSession(s, sid, 64<<10)
				out := lines(1, 150000)         // ~1.3 MB
				errOut := lines(500000, 540000) // ~0.3 MB
				stop := make(chan struct{})
				var wg sync.WaitGroup
				if c.syncer {
					wg.Go(func() {
						for {
							select {
							case <-stop:
								return
							default:
								s.Sync(time.Second)
							}
						}
					})
				}
				var pumps sync.WaitGroup
				pumps.Go(func() { pumpOutput(l, outlog.Stdout, out, []int{65536, 4096, 777, 65536, 61440, 1}) })
				pumps.Go(func() { pumpOutput(l, outlog.Stderr, errOut, []int{100, 8192, 65536}) })
				pumps.Wait()
				close(stop)
				wg.Wait()
				l.CloseWrite()
				if !s.Sync(time.Minute) {
					t.Fatal("store did not commit")
				}
				total := int64(len(out) + len(errOut))
				wantLines := int64(bytes.Count(out, []byte{'\n'}) + bytes.Count(errOut, []byte{'\n'}))
				if st := l.Stats(); st.End != total || st.Lines != wantLines {
					t.Fatalf("stats %+v: want end %d, %d lines", st, total, wantLines)
				}
				var sum, biggest, n, nl int64
				if err := s.db.QueryRow(`SELECT COALESCE(SUM(size),0), COALESCE(MAX(size),0), COUNT(*), COALESCE(SUM(nl),0) FROM records WHERE sid=? AND kind=?`,
					sid, kindOutput).Scan(&sum, &biggest, &n, &nl); err != nil {
					t.Fatal(err)
				}
				if sum != total || nl != wantLines || biggest > maxChunk {
					t.Fatalf("records: %d bytes, %d newlines in %d, the biggest %d; want %d bytes, %d newlines, each <= %d",
						sum, nl, n, biggest, total, wantLines, maxChunk)
				}
				var gaps int
				if err := s.db.QueryRow(`SELECT COUNT(*) FROM records WHERE sid=? AND event='gap'`, sid).Scan(&gaps); err != nil || gaps != 0 {
					t.Fatalf("%d gap events (err %v), want none", gaps, err)
				}
				seg, err := segmentBytes(filepath.Join(dir, "segments", sid))
				if err != nil || seg != total {
					t.Fatalf("segment files hold %d bytes (err %v), want %d", seg, err, total)
				}
				past, err := s.OpenLog(sid) // from disk alone, as after a restart
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range []struct {
					s    outlog.Stream
					want []byte
				}{{outlog.Stdout, out}, {outlog.Stderr, errOut}} {
					if got := readStream(t, past, v.s); !bytes.Equal(got, v.want) {
						t.Fatalf("round %d: %s on disk: %d bytes, want %d identical", round, v.s, len(got), len(v.want))
					}
					if got := readStream(t, l, v.s); !bytes.Equal(got, v.want) {
						t.Fatalf("round %d: %s through the live log: %d bytes, want %d identical", round, v.s, len(got), len(v.want))
					}
				}
			}
		})
	}
}

func segmentBytes(dir string) (int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			return 0, err
		}
		n += fi.Size()
	}
	return n, nil
}

// TestWriteParts: a record held as many slices, more than one writev
// takes, lands in the file whole and in order.
func TestWriteParts(t *testing.T) {
	for _, count := range []int{1, 3, maxIov, maxIov + 1, 3*maxIov + 17} {
		t.Run(fmt.Sprint(count), func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "seg"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var want []byte
			parts := make([][]byte, count)
			for i := range parts {
				parts[i] = bytes.Repeat([]byte{byte('a' + i%26)}, 1+i%97)
				want = append(want, parts[i]...)
			}
			n, err := writeParts(f, parts)
			if err != nil || n != int64(len(want)) {
				t.Fatalf("wrote %d (err %v), want %d", n, err, len(want))
			}
			got, err := os.ReadFile(f.Name())
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("file holds %d bytes (err %v), want %d identical", len(got), err, len(want))
			}
		})
	}
}
