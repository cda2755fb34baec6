package nodebackend

import (
	"slices"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/outlog"
)

// BenchmarkNode_Ping is the framed protocol's round trip: one request and
// its reply over a node's stdio (a local child, the same stream a Docker
// exec carries minus dockerd's copy). docs/design.md compares it with an
// MCP tools/call over stdio (cmd/agentty BenchmarkMCP_RoundTrip).
func BenchmarkNode_Ping(b *testing.B) {
	pool := NewPool(&Options{Version: "bench", Dial: localDial})
	defer pool.Close()
	c, err := pool.conn("docker://local")
	if err != nil {
		b.Fatal(err)
	}
	var d []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := c.call(request{Op: opPing}, callTimeout); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	reportQuantiles(b, d)
}

// BenchmarkNode_SeqThroughput is output through a node: seq 1 1000000
// (6.9 MB) from start to the last byte in the sink.
func BenchmarkNode_SeqThroughput(b *testing.B) {
	pool := NewPool(&Options{Version: "bench", Dial: localDial})
	defer pool.Close()
	var total int
	for b.Loop() {
		n := 0
		p, err := pool.Start(backend.RemoteSpec{Host: "docker://local", Argv: []string{"seq", "1", "1000000"}},
			func(_ outlog.Stream, q []byte) { n += len(q) })
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			b.Fatal(err)
		}
		<-p.Drained()
		p.Close()
		if n != 6888896 {
			b.Fatalf("got %d bytes", n)
		}
		total += n
	}
	b.SetBytes(6888896)
	_ = total
}

// reportQuantiles reports the median and p95 of d in microseconds.
func reportQuantiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "median-us")
	b.ReportMetric(float64(d[len(d)*95/100].Microseconds()), "p95-us")
}
