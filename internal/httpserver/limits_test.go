package httpserver

import (
	"cmp"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Connections over a limit that no unproven or idle connection can make
// room for are refused at once: the first few over it get /healthz or a
// 503 with Retry-After, the rest are closed unanswered. The limits count
// connections, not requests, from the moment of accept.
func TestConnLimit_RefusesOverLimit(t *testing.T) {
	const token = "s3cret-token"
	for _, tc := range []struct {
		name    string
		opts    Options
		from    []string // the address of each of the 3 held connections
		spareIP string   // where the over-limit connections come from
		why     string
		others  bool // another address is still served
	}{
		{"per address", Options{MaxConnsPerIP: 3, Token: token, BodyTimeout: time.Minute}, []string{"127.0.0.2", "127.0.0.2", "127.0.0.2"}, "127.0.0.2",
			"3 connections from 127.0.0.2 (limit 3)", true},
		{"in total", Options{MaxConns: 3, Token: token, BodyTimeout: time.Minute}, []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"}, "127.0.0.5",
			"3 connections in total (limit 3)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, &tc.opts)
			addr := s.Addr().String()
			var held []*rawConn
			for _, ip := range tc.from {
				c := dialRaw(t, addr, ip)
				c.send(slowPost(addr, "Bearer "+token)) // proven, its request in progress
				held = append(held, c)
			}
			waitActive(t, s, len(tc.from))
			// The kernel hands connections to Accept in order, so these
			// come after the held ones.
			refusedAPI := dialRaw(t, addr, tc.spareIP)
			refusedHealth := dialRaw(t, addr, tc.spareIP)
			dropped := dialRaw(t, addr, tc.spareIP)
			if raw, _ := dropped.untilClosed(spareLife / 2); raw != "" {
				t.Fatalf("a connection beyond the spare ones got %q, want it closed unanswered", raw)
			}

			refusedAPI.send("GET /mcp HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")
			raw, _ := refusedAPI.untilClosed(5 * time.Second)
			resp := response(t, raw)
			if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || !resp.Close || !strings.Contains(raw, tc.why) {
				t.Fatalf("over the limit: got %q, want a closing 503 with Retry-After: 1 saying %q", raw, tc.why)
			}

			refusedHealth.send("GET /healthz HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")
			raw, _ = refusedHealth.untilClosed(5 * time.Second)
			resp = response(t, raw)
			var h Health
			if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != 200 {
				t.Fatalf("/healthz over the limit: %q (%v)", raw, err)
			}
			want := Health{Status: "ok", MCPClients: h.MCPClients, ConnsOpen: 3, ConnLimit: cmp.Or(tc.opts.MaxConns, DefaultMaxConns), ConnsRefused: 3}
			if h != want {
				t.Fatalf("/healthz over the limit = %+v, want %+v", h, want)
			}

			// A place freed is a place for the next connection.
			held[0].Close()
			waitOpen(t, s, 2)
			again := dialRaw(t, addr, tc.spareIP)
			again.send("GET /healthz HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\n\r\n")
			raw, _ = again.untilClosed(5 * time.Second)
			if resp := response(t, raw); resp.StatusCode != 200 || !strings.Contains(raw, `"conns_open":3,`) {
				t.Fatalf("after a place was freed: %q", raw)
			}
			if tc.others {
				catSession(s.connect(t, transports[0], clientOpts{token: token}))
			}
		})
	}
}

// At the total limit, a newcomer from a quieter address takes the place of
// the oldest connection not proven by the token; a busy proven connection
// (request in progress) is never taken.
func TestConnLimit_EvictsBusiestIdle(t *testing.T) {
	const token = "s3cret-token"
	s := startServer(t, &Options{MaxConns: 3, BodyTimeout: time.Minute, Token: token})
	addr := s.Addr().String()
	busy := dialRaw(t, addr, "127.0.0.2")
	busy.send(slowPost(addr, "Bearer "+token)) // its request is in progress
	waitActive(t, s, 1)
	oldest := dialRaw(t, addr, "127.0.0.2")
	newer := dialRaw(t, addr, "127.0.0.2")

	comer := dialRaw(t, addr, "127.0.0.3")
	if raw, _ := oldest.untilClosed(5 * time.Second); raw != "" {
		t.Fatalf("evicted connection got %q", raw)
	}
	comer.send("GET /healthz HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\n\r\n")
	raw, _ := comer.untilClosed(5 * time.Second)
	if resp := response(t, raw); resp.StatusCode != 200 || !strings.Contains(raw, `"conns_open":3,"conn_limit":3,"conns_refused":0,"conns_evicted":1}`) {
		t.Fatalf("newcomer got %q", raw)
	}
	// busy is older but was skipped; newer is younger.
	_ = newer
}

// A spare connection cannot be held: it is closed spareLife after accept
// whatever it does.
func TestConnLimit_SpareConnectionsExpire(t *testing.T) {
	s := startServer(t, &Options{MaxConnsPerIP: 1, Token: "tok", BodyTimeout: time.Minute})
	addr := s.Addr().String()
	dialRaw(t, addr, "127.0.0.2").send(slowPost(addr, "Bearer tok"))
	waitActive(t, s, 1)
	spare := dialRaw(t, addr, "127.0.0.2")
	spare.send("GET /healthz HTTP/1.1\r\nHost: ") // and never the rest
	raw, took := spare.untilClosed(3 * spareLife)
	if raw != "" && !strings.HasPrefix(raw, "HTTP/1.1 408") {
		t.Fatalf("got %q", raw)
	}
	t.Logf("spare connection closed after %v", took.Round(time.Millisecond))
}

// waitActive waits until n connections have a request in progress.
func waitActive(t *testing.T, s *testServer, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		active := 0
		s.lim.mu.Lock()
		for _, ipc := range s.lim.byIP {
			for c := range ipc.conns {
				if !c.idle.Load() {
					active++
				}
			}
		}
		s.lim.mu.Unlock()
		if active == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections active, want %d", active, n)
		}
		<-tick.C
	}
}

// waitOpen waits until the server counts n connections open.
func waitOpen(t *testing.T, s *testServer, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		open, _ := s.lim.counts()
		if open == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, want %d", open, n)
		}
		<-tick.C
	}
}
