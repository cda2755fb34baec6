package httpserver

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/toolcall"
)

// Load, loopback only: 50 concurrent clients, each driving its own `cat`
// session with 200 send_input round trips, then checking checksums of
// everything echoed against everything sent, reply by reply and over the
// whole transcript. Reported: round trips per second and p50/p99 latency.
//
//	go test -run '^$' -bench HTTP_50Clients -benchtime 1x ./internal/httpserver
func BenchmarkHTTP_50Clients(b *testing.B) {
	const clients, trips = 50, 200
	for _, tr := range []transport{transports[0], transports[1], transports[3]} {
		b.Run(tr.name, func(b *testing.B) {
			for range b.N {
				// All from 127.0.0.1, several connections each.
				s := startServer(b, &Options{MaxConnsPerIP: 4 * clients})
				lat := make([][]time.Duration, clients)
				errs := make(chan error, clients)
				var wg sync.WaitGroup
				cs := make([]*client, clients)
				for i := range cs {
					cs[i] = s.connect(b, tr, clientOpts{})
				}
				start := time.Now()
				for i := range clients {
					wg.Go(func() {
						d, err := drive(cs[i], i, trips)
						lat[i] = d
						if err != nil {
							errs <- fmt.Errorf("client %d: %w", i, err)
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				close(errs)
				for err := range errs {
					b.Error(err)
				}
				all := slices.Concat(lat...)
				if len(all) != clients*trips {
					b.Fatalf("%d round trips completed, want %d", len(all), clients*trips)
				}
				slices.Sort(all)
				b.ReportMetric(float64(len(all))/elapsed.Seconds(), "roundtrips/s")
				b.ReportMetric(ms(all[len(all)/2]), "p50-ms")
				b.ReportMetric(ms(all[len(all)*99/100]), "p99-ms")
				b.ReportMetric(0, "ns/op")
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// drive runs trips round trips through its own cat session and checks that
// every byte sent came back, in order, exactly once.
func drive(c *client, id, trips int) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var st mcpserver.StartResult
	if res, err := toolcall.Call(ctx, c.cs, "start_process", map[string]any{"argv": []string{"cat"}, "mode": "pipe", "timeout_ms": 0}, &st); err != nil || res.IsError {
		return nil, fmt.Errorf("start: %v %v", err, res)
	}
	sent, echoed := sha256.New(), sha256.New()
	lat := make([]time.Duration, 0, trips)
	for n := range trips {
		line := fmt.Sprintf("client%02d-trip%03d-%x", id, n, n*7919)
		fmt.Fprintln(sent, line)
		t0 := time.Now()
		var r mcpserver.SendResult
		res, err := toolcall.Call(ctx, c.cs, "send_input", map[string]any{"session_id": st.SessionID, "text": line, "enter": true,
			"until": "(?m)^" + line + "$", "settle_ms": 0, "timeout_ms": 30000}, &r)
		if err != nil || res.IsError {
			return lat, fmt.Errorf("trip %d: %v %v", n, err, res)
		}
		lat = append(lat, time.Since(t0))
		if r.Output != line+"\n" {
			return lat, fmt.Errorf("trip %d: echoed %q, want %q", n, r.Output, line+"\n")
		}
		echoed.Write([]byte(r.Output))
	}
	var all mcpserver.ReadResult
	if res, err := toolcall.Call(ctx, c.cs, "read_output", map[string]any{"session_id": st.SessionID, "cursor": 0, "timeout_ms": 0, "max_bytes": 1 << 20}, &all); err != nil || res.IsError {
		return lat, fmt.Errorf("transcript: %v %v", err, res)
	}
	transcript := sha256.Sum256([]byte(all.Output))
	if sum(sent) != sum(echoed) || sum(sent) != transcript {
		return lat, fmt.Errorf("checksums differ: sent %x, echoed %x, transcript %x", sum(sent), sum(echoed), transcript)
	}
	return lat, nil
}

func sum(h hash.Hash) (s [32]byte) { copy(s[:], h.Sum(nil)); return s }
