package httpserver

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Hostile clients, loopback only: conns raw TCP connections each send the
// headers of a POST /mcp declaring 1000 body bytes and then one byte (the
// issue's repro), without a token or with one and the rest of the body at
// 1 byte/s; every connection is read until the server closes it or bound
// passes. Reported: connections still open at the bound, those that got
// an answer (401, or 408/400 for the slow body), and the time to close
// (p50, max) of those the server closed.
//
//	go test -run '^$' -bench HostileClients -benchtime 1x ./internal/httpserver
func BenchmarkHostileClients(b *testing.B) {
	const token = "s3cret-token"
	for _, tc := range []struct {
		name  string
		conns int
		ips   int // spread over 127.0.0.1 .. 127.0.0.ips
		auth  string
		bound time.Duration
	}{
		{"unauthenticated-2000-from-1-address", 2000, 1, "", 20 * time.Second},
		{"unauthenticated-2000-from-40-addresses", 2000, 40, "", 20 * time.Second},
		{"token-slow-body-200-from-4-addresses", 200, 4, "Bearer " + token, 45 * time.Second},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				s := startServer(b, &Options{Token: token})
				held, answered, closes := hostileRound(b, s.Addr().String(), tc.conns, tc.ips, tc.auth, tc.bound)
				slices.Sort(closes)
				b.ReportMetric(float64(held), "held@bound")
				b.ReportMetric(float64(answered), "answered")
				b.ReportMetric(float64(len(closes)), "closed")
				if len(closes) > 0 {
					b.ReportMetric(float64(closes[len(closes)/2].Milliseconds()), "p50-close-ms")
					b.ReportMetric(float64(closes[len(closes)-1].Milliseconds()), "max-close-ms")
				}
			}
		})
	}
}

func hostileRound(b *testing.B, addr string, conns, ips int, auth string, bound time.Duration) (held, answered int, closes []time.Duration) {
	b.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range conns {
		c, err := dialFrom(addr, fmt.Sprintf("127.0.0.%d", 1+i%ips))
		if err != nil {
			b.Fatalf("connection %d: %v", i, err)
		}
		wg.Go(func() {
			defer c.Close()
			start := time.Now()
			closed, status := hostileConn(c, addr, auth, start.Add(bound))
			mu.Lock()
			defer mu.Unlock()
			if status != "" {
				answered++
			}
			if !closed {
				held++
				return
			}
			closes = append(closes, time.Since(start))
		})
	}
	wg.Wait()
	return held, answered, closes
}

// hostileConn plays one client until the server closes the connection
// (true) or deadline passes (false), and returns the status line of any
// answer.
func hostileConn(c net.Conn, addr, auth string, deadline time.Time) (bool, string) {
	if _, err := io.WriteString(c, slowPost(addr, auth)); err != nil {
		return true, "" // already closed: refused at accept
	}
	stop := make(chan struct{})
	defer close(stop)
	if auth != "" {
		go func() { // the rest of the body at 1 byte/s
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if _, err := c.Write([]byte(" ")); err != nil {
						return
					}
				}
			}
		}()
	}
	_ = c.SetReadDeadline(deadline)
	var got strings.Builder
	_, err := io.Copy(&got, c)
	status, _, _ := strings.Cut(got.String(), "\r\n")
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout()), status
}
