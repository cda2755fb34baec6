package httpserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/mcpserver"
)

// A client that sends headers and then only part of its body is refused
// from the headers alone, gets its answer at once, and is disconnected
// instead of being waited on for the rest of a body nobody will read.
func TestSlowBody_RefusedClosesAtOnce(t *testing.T) {
	const token = "s3cret-token"
	s := startServer(t, &Options{Token: token})
	host := s.Addr().String()
	for _, tc := range []struct {
		name, auth, origin string
		want               int
		wantBody           string
	}{
		{"no token", "", "", 401, "needs a bearer token"},
		{"wrong token", "Bearer nope", "", 401, "the bearer token is wrong"},
		{"foreign origin", "Bearer " + token, "http://evil.example", 403, "is not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, host, "")
			req := slowPost(host, tc.auth)
			if tc.origin != "" {
				req = strings.Replace(req, "\r\n\r\n", "\r\nOrigin: "+tc.origin+"\r\n\r\n", 1)
			}
			c.send(req)
			raw, took := c.untilClosed(5 * time.Second)
			resp := response(t, raw)
			if resp.StatusCode != tc.want || !strings.Contains(raw, tc.wantBody) {
				t.Fatalf("got %q, want %d containing %q", raw, tc.want, tc.wantBody)
			}
			if !resp.Close {
				t.Errorf("refusal without Connection: close: %v", resp.Header)
			}
			t.Logf("answered %d and closed after %v", tc.want, took.Round(time.Millisecond))
		})
	}
}

// A client with the token that sends its body too slowly is cut off after
// the body timeout, and the server keeps serving others.
func TestSlowBody_AuthenticatedTimesOut(t *testing.T) {
	const token = "s3cret-token"
	s := startServer(t, &Options{Token: token, BodyTimeout: time.Second})
	host := s.Addr().String()
	c := dialRaw(t, host, "")
	c.send(slowPost(host, "Bearer "+token))
	// A byte now and then does not extend the deadline.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	type result struct {
		took time.Duration
		err  error
	}
	closed := make(chan result, 1)
	go func() {
		_, took, err := readUntilClosed(c.Conn, 10*time.Second)
		closed <- result{took, err}
	}()
	for {
		select {
		case r := <-closed:
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.took < time.Second/2 {
				t.Fatalf("closed after %v, before the body timeout", r.took)
			}
			t.Logf("slow body cut off after %v", r.took.Round(time.Millisecond))
			// A well-behaved client is served meanwhile and after.
			code, body := post(t, http.DefaultClient, s.base+"/mcp", map[string]string{"Authorization": "Bearer " + token})
			if code != 200 {
				t.Fatalf("initialize after the slow client: %d %q", code, body)
			}
			return
		case <-tick.C:
			_, _ = c.Write([]byte(" "))
		}
	}
}

// A body that takes a while but arrives within the timeout is served; the
// deadline ends with the body, so a long call after it is not cut off.
func TestSlowBody_WithinTimeoutServed(t *testing.T) {
	s := startServer(t, &Options{BodyTimeout: 2 * time.Second})
	host := s.Addr().String()
	c := dialRaw(t, host, "")
	body := initializeBody
	c.send(fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", host, len(body)))
	c.send(body[:10])
	c.send(body[10:])
	raw, _ := c.untilClosed(10 * time.Second)
	if resp := response(t, raw); resp.StatusCode != 200 || !strings.Contains(raw, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("got %q", raw)
	}
}

// The body timeout bounds reading the request, not the call: a wait far
// longer than it still returns its result, over every transport.
func TestBodyTimeout_LongCallUnaffected(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := startServer(t, &Options{BodyTimeout: 300 * time.Millisecond})
			c := s.connect(t, tr, clientOpts{})
			var st mcpserver.StartResult
			c.call("start_process", map[string]any{"argv": []string{"sleep", "600"}, "mode": "pipe", "timeout_ms": 0}, &st)
			start := time.Now()
			var rr mcpserver.ReadResult
			c.call("read_output", map[string]any{"session_id": st.SessionID, "timeout_ms": 2000, "until": "never", "settle_ms": 0}, &rr)
			if took := time.Since(start); took < 2*time.Second || rr.Reason != "timeout" {
				t.Fatalf("the 2 s wait returned after %v with reason %q", took, rr.Reason)
			}
		})
	}
}
