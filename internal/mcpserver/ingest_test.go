package mcpserver

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/session"
)

// ingestBytes is how much the full-speed test pushes through a pipe.
const ingestBytes = 100_000_000

// seqHash is the sha256 of the first n bytes of `seq 1 N` output.
func seqHash(n int) string {
	h := sha256.New()
	left := n
	buf := make([]byte, 0, 1<<16)
	for i := 1; left > 0; i++ {
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, '\n')
		if len(buf) >= 1<<15 {
			left -= write(h, buf, left)
			buf = buf[:0]
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func write(h hash.Hash, b []byte, left int) int {
	n := min(len(b), left)
	h.Write(b[:n])
	return n
}

// hashLog reads a whole log back through the outlog interface.
func hashLog(t *testing.T, l outlog.Log) (string, int64) {
	t.Helper()
	h := sha256.New()
	var at, total int64
	for {
		sl := l.Read(at, -1, 4<<20, outlog.Both)
		if sl.LostBytes != 0 {
			t.Fatalf("read at %d: %d bytes lost", at, sl.LostBytes)
		}
		if len(sl.Data) == 0 {
			break
		}
		h.Write(sl.Data)
		total += int64(len(sl.Data))
		at = sl.Next
	}
	return hex.EncodeToString(h.Sum(nil)), total
}

func TestIngest_FullSpeedPipeEveryByteStored(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes 100 MB through the store")
	}
	want := seqHash(ingestBytes)
	c, st := newStoreClient(t, t.TempDir(), session.Config{}, nil)
	start := time.Now()
	r := c.start(map[string]any{"command": fmt.Sprintf("seq 1 100000000 | head -c %d", ingestBytes), "mode": "pipe", "timeout_ms": 0})
	var rr ReadResult
	for rr.State != "exited" {
		c.call("read_output", map[string]any{"session_id": r.SessionID, "timeout_ms": 60000, "settle_ms": 0, "max_bytes": 1024}, &rr)
	}
	child := time.Since(start)
	// Read back from disk alone, as after a restart.
	if !st.Sync(60 * time.Second) {
		t.Fatal("store did not commit within 60 s")
	}
	l, err := st.OpenLog(r.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	got, n := hashLog(t, l)
	if n != ingestBytes || got != want {
		t.Fatalf("transcript holds %d bytes with sha256 %s; want %d bytes, %s", n, got, ingestBytes, want)
	}
	t.Logf("100 MB child finished in %v with the store on (compare: BenchmarkIngest)", child)
}
