package httpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/logbuf"
)

// TestBackpressure_DeafSSEClient: a legacy SSE client that opens its event
// stream and never reads it, while it posts get_history calls with 256 KiB
// replies, is held at the session's call cap; once its stream has not
// moved for the stall period the stream is cut with a log line and its
// session ends (further POSTs: 503 while held at the cap, 404 once the
// session is gone), while another client's calls go on.
func TestBackpressure_DeafSSEClient(t *testing.T) {
	defer func(c int, d time.Duration) { maxSessionCalls, replyStall = c, d }(maxSessionCalls, replyStall)
	maxSessionCalls, replyStall = 4, 500*time.Millisecond
	logs := &logbuf.Buffer{}
	s := startServer(t, &Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	healthy := s.connect(t, transports[1], clientOpts{})
	var started struct {
		SessionID string `json:"session_id"`
	}
	healthy.call("start_process", map[string]any{"argv": []string{"seq", "-f", "%025g", "1", "20000"}}, &started)
	healthy.call("wait_sessions", map[string]any{"session_ids": []string{started.SessionID}, "timeout_ms": 30000}, nil)

	// The deaf client: a receive buffer of 4 KiB, and nothing read past
	// the endpoint event.
	d := net.Dialer{Timeout: 10 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { setRcvBuf(fd, 4096) })
	}}
	conn, err := d.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /sse HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", s.Addr())
	br := bufio.NewReader(conn)
	var endpoint string
	for endpoint == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("event stream: %v", err)
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			endpoint = rest
		}
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{}}
	post := func(body string) int {
		resp, err := hc.Post(s.base+endpoint, "application/json", strings.NewReader(body))
		if err != nil {
			return 0 // cut
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusBadRequest && strings.TrimSpace(string(b)) != "session closed" {
			t.Fatalf("POST answered 400: %q", b)
		}
		return resp.StatusCode
	}
	if c := post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"deaf","version":"1"}}}`); c != http.StatusAccepted {
		t.Fatalf("initialize: %d", c)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	codes := map[int]int{}
	for i := 1; i <= 200 && codes[http.StatusAccepted] == i-1; i++ {
		codes[post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_history","arguments":{"session_id":%q,"lines":10000,"max_bytes":262144}}}`, i, started.SessionID))]++
		// The other client is served meanwhile.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := healthy.cs.Ping(ctx, nil); err != nil {
			t.Fatalf("the healthy client's ping during the flood: %v", err)
		}
		cancel()
	}
	// Refused at the cap (503), or the stream was cut: the session is
	// closed (400 "session closed") and then gone (404).
	if codes[http.StatusServiceUnavailable]+codes[http.StatusBadRequest]+codes[http.StatusNotFound] == 0 {
		t.Fatalf("200 calls from a client that reads no reply were all taken: %v", codes)
	}
	t.Logf("POST answers: %v", codes)
	// The stream is cut: draining it now meets its end.
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.Copy(io.Discard, br); err != nil {
		t.Fatalf("the deaf client's stream was not closed: %v", err)
	}
	l := logs.String()
	if !strings.Contains(l, "HTTP client is not reading its replies: disconnected") {
		t.Errorf("no disconnect line in the log:\n%.3000s", l)
	}
	healthy.call("list_sessions", map[string]any{}, nil)
}
