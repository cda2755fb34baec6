package httpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/logbuf"
)

// The repro of issue 36's item 6: 100 connections from 127.0.0.1 (where
// every local client comes from) that send one header line a second, or
// drip a 100,000-byte body a byte a second, reconnecting whenever they are
// closed. A client with the token (or, on a server without one, a client
// that sends its request at once) must be served on its first try, each
// time, while they go on.
func TestConnLimit_SlowPeersCannotLockOut(t *testing.T) {
	const token = "s3cret-token"
	for _, tc := range []struct {
		name   string
		opts   Options
		attack func(host string) (start string, drip string)
		auth   string
	}{
		{"slow headers, token", Options{Token: token}, func(host string) (string, string) {
			return "GET /mcp HTTP/1.1\r\nHost: " + host + "\r\n", "X-Drip: 1\r\n"
		}, "Bearer " + token},
		{"slow headers, no token", Options{}, func(host string) (string, string) {
			return "GET /mcp HTTP/1.1\r\nHost: " + host + "\r\n", "X-Drip: 1\r\n"
		}, ""},
		{"dripped body, no token", Options{BodyTimeout: time.Minute}, func(host string) (string, string) {
			return "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{", " "
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs logbuf.Buffer
			tc.opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			s := startServer(t, &tc.opts)
			host := s.Addr().String()
			hdr := map[string]string{}
			if tc.auth != "" {
				hdr["Authorization"] = tc.auth
			}
			// Without a token nothing tells a healthy client whose
			// request is still arriving from a slow one: it is proven
			// once its request has arrived whole, and a connection closed
			// before that is retried (at most 1 in 10). With the token it
			// is proven by its headers, always at its first try.
			retries := 0
			if tc.auth == "" {
				retries = 5
			}
			unloaded := healthyWaits(t, s, hdr, 20, 0)

			start, drip := tc.attack(host)
			a := startSlowPeers(t, host, 100, time.Second, start, drip)
			waitOpen(t, s, DefaultMaxConnsPerIP)
			a.waitRefused(t) // the limit is reached: newcomers displace
			attacked := healthyWaits(t, s, hdr, 50, retries)
			if log := logs.String(); !strings.Contains(log, `level=WARN msg="closing HTTP connections that showed no token to make room at a limit (slow or unauthenticated clients)" closed=1 latest_from=127.0.0.1`) {
				t.Errorf("no log line for the connections closed:\n%.2000s", log)
			}
			t.Logf("healthy client, median/max: unloaded %v/%v, during the attack %v/%v; attackers reconnected %d times",
				unloaded[len(unloaded)/2], unloaded[len(unloaded)-1], attacked[len(attacked)/2], attacked[len(attacked)-1], a.reconnects.Load())
		})
	}
}

// healthyWaits sends n initialize requests, each on a new connection, and
// returns how long each waited to be served, sorted. One that is refused
// (503) is retried for up to 12 s, and fails the test: a healthy client
// must be served on its first try, but for at most closes connections
// closed before their response, each retried at once.
func healthyWaits(t *testing.T, s *testServer, hdr map[string]string, n, closes int) []time.Duration {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	var took []time.Duration
	for i := range n {
		begin := time.Now()
		first := ""
		for try := 1; ; try++ {
			code, body := tryPost(hc, s.base+"/mcp", hdr)
			if code == 200 && strings.Contains(body, `"protocolVersion":"2025-11-25"`) && try == 1 {
				break
			}
			if try == 1 {
				first = fmt.Sprintf("%d %.200q", code, body)
			}
			if code == 0 && try == 1 && closes > 0 {
				closes--
				t.Logf("healthy request %d: connection closed before its response (%.100s); retried", i, body)
				continue
			}
			if code == 200 && try == 2 && strings.HasPrefix(first, "0 ") {
				break
			}
			if code == 200 || time.Since(begin) > 12*time.Second {
				t.Fatalf("healthy request %d: served after %v and %d tries, want at the first; the first got %s", i, time.Since(begin).Round(time.Millisecond), try, first)
			}
		}
		took = append(took, time.Since(begin).Round(100*time.Microsecond))
	}
	slices.Sort(took)
	return took
}

// tryPost is post that reports a refused connection as code 0.
func tryPost(hc *http.Client, url string, hdr map[string]string) (int, string) {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// slowPeers are attackers: n connections that each send start, then drip
// every interval, and reconnect as soon as the server closes them.
type slowPeers struct {
	cancel     context.CancelFunc
	wg         sync.WaitGroup
	reconnects atomic.Int64 // connections closed by the server
}

func startSlowPeers(t *testing.T, host string, n int, every time.Duration, start, drip string) *slowPeers {
	ctx, cancel := context.WithCancel(context.Background())
	a := &slowPeers{cancel: cancel}
	for range n {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			for ctx.Err() == nil {
				a.hold(ctx, host, every, start, drip)
			}
		}()
	}
	t.Cleanup(func() { a.cancel(); a.wg.Wait() })
	return a
}

// hold keeps one connection dripping until the server closes it or ctx
// ends; a read with a deadline both paces the drip and sees the close.
func (a *slowPeers) hold(ctx context.Context, host string, every time.Duration, start, drip string) {
	c, err := dialFrom(host, "127.0.0.1")
	if err != nil {
		return
	}
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	defer c.Close()
	if _, err := io.WriteString(c, start); err != nil {
		a.reconnects.Add(1)
		return
	}
	buf := make([]byte, 512)
	for {
		_ = c.SetReadDeadline(time.Now().Add(every))
		_, err := c.Read(buf)
		var ne net.Error
		switch {
		case ctx.Err() != nil:
			return
		case errors.As(err, &ne) && ne.Timeout():
			if _, err := io.WriteString(c, drip); err != nil {
				a.reconnects.Add(1)
				return
			}
		case err != nil:
			a.reconnects.Add(1)
			return
		}
	}
}

// waitRefused waits until some attacker has been closed by the server:
// the limit was reached and every newcomer now meets it.
func (a *slowPeers) waitRefused(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for a.reconnects.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal(fmt.Errorf("no attacker was closed within 20 s"))
		}
		<-tick.C
	}
}
