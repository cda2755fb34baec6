//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpSessionCap is the calls one MCP session may have in flight
// (internal/httpserver).
const httpSessionCap = 16

// httpDeafConns is how many connections the deaf client opens, each with
// one get_history call: more than the per-session cap of 16.
const httpDeafConns = 24

// deafDial connects to addr with a 4 KiB receive buffer, so a reply the
// client never reads stays in the server's send path.
func deafDial(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 10 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// peekConn is what c has received and not yet read, without reading it.
func peekConn(t *testing.T, c net.Conn) []byte {
	t.Helper()
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	n := 0
	_ = rc.Control(func(fd uintptr) {
		n, _, _ = syscall.Recvfrom(int(fd), buf, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	})
	return buf[:max(n, 0)]
}

// mcpSession opens an MCP session over streamable HTTP by hand and
// returns its Mcp-Session-Id.
func mcpSession(t *testing.T, url, token string) string {
	t.Helper()
	post := func(body, sid string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"deaf","version":"1"}}}`, "")
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s, session id %q", resp.Status, sid)
	}
	if resp := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %s", resp.Status)
	}
	return sid
}

// TestServeHTTP_DeafClientBounded: a client of serve -http that posts
// get_history calls with 750 KB replies on one MCP session, each on a
// connection of its own that it never reads, keeps the server's RSS
// bounded; its stalled connections are closed with a log line 10 s after
// the reply could not be written; calls past the session's cap of 16 wait
// and are then answered 503 or taken once a slot frees; and a second
// client's calls go on meanwhile.
func TestServeHTTP_DeafClientBounded(t *testing.T) {
	t.Parallel()
	s := startHTTPServer(t, []string{tokenEnv + "=", "XDG_STATE_HOME=" + t.TempDir()})
	token := s.bannerToken()
	healthy := s.connect(token)
	ctx := context.Background()
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := healthy.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return res
	}
	var started struct {
		SessionID string `json:"session_id"`
	}
	res := call("start_process", map[string]any{"argv": []string{"seq", "-f", "%025g", "1", "20000"}})
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &started); err != nil || started.SessionID == "" {
		t.Fatalf("start_process: %v %s", err, b)
	}
	call("wait_sessions", map[string]any{"session_ids": []string{started.SessionID}, "timeout_ms": 30000})

	addr := strings.TrimPrefix(strings.TrimSuffix(s.url, "/mcp"), "http://")
	sid := mcpSession(t, s.url, token)
	pid := s.cmd.Process.Pid
	base := rssKiBOf(pid)

	// The healthy client's round trips go on throughout.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		select {
		case <-stop:
		default:
			close(stop) // on a failure
		}
		wg.Wait()
	}()
	var rtts []time.Duration
	var pingErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			start := time.Now()
			_, err := healthy.CallTool(pctx, &mcp.CallToolParams{Name: "list_sessions", Arguments: map[string]any{}})
			cancel()
			if err != nil {
				pingErr = err
				return
			}
			rtts = append(rtts, time.Since(start))
			time.Sleep(20 * time.Millisecond)
		}
	}()

	conns := make([]net.Conn, httpDeafConns)
	sent := time.Now()
	for i := range conns {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_history","arguments":{"session_id":%q,"lines":10000,"max_bytes":262144}}}`, i+1, started.SessionID)
		conns[i] = deafDial(t, addr)
		fmt.Fprintf(conns[i], "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s",
			addr, token, sid, len(body), body)
	}
	// served counts the deaf calls whose reply has begun (200), and
	// answered those with any answer (a 503 too).
	counts := func() (served, answered int) {
		for _, c := range conns {
			if got := peekConn(t, c); len(got) > 0 {
				answered++
				if strings.HasPrefix(string(got), "HTTP/1.1 200 ") {
					served++
				}
			}
		}
		return served, answered
	}

	// Until the server cuts the first stalled connection, RSS stays
	// bounded, nothing is read, and at most 16 calls of the session have
	// begun their reply (a cut is logged before its place frees, so a count
	// taken before a log without the cut saw no freed place).
	const cutLine, refusedLine = "HTTP client is not reading its replies: disconnected", "HTTP client is not taking its replies: call refused"
	peak := base
	most := 0
	deadline := sent.Add(30 * time.Second)
	var cut, refused int
	for cut == 0 {
		rss := rssKiBOf(pid)
		peak = max(peak, rss)
		if rss > deafRSSBound {
			t.Fatalf("server RSS %d KiB while a client reads no reply: over the %d KiB bound", rss, deafRSSBound)
		}
		n, _ := counts()
		cut = strings.Count(readFile(t, s.stderr), cutLine)
		if cut == 0 {
			most = max(most, n)
			if n > httpSessionCap {
				t.Fatalf("%d calls of one MCP session served at once while no reply was read; the cap is %d", n, httpSessionCap)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stalled connection cut %v after the calls (%d served)", time.Since(sent), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cutAfter := time.Since(sent)
	if most != httpSessionCap {
		t.Errorf("%d calls served before the first cut, want the cap, %d", most, httpSessionCap)
	}
	// The first 16 are cut, and the others, held that long, are now
	// refused with 503 or take the freed places.
	for {
		log := readFile(t, s.stderr)
		cut, refused = strings.Count(log, cutLine), strings.Count(log, refusedLine)
		if _, n := counts(); cut >= httpSessionCap && n == httpDeafConns {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v after the calls, %d connections cut and %d calls refused; %d of %d answered", time.Since(sent), cut, refused, func() int { _, n := counts(); return n }(), httpDeafConns)
		}
		time.Sleep(50 * time.Millisecond)
	}
	codes := map[string]int{}
	for i, c := range conns {
		head, _, _ := strings.Cut(string(peekConn(t, c)), "\r\n")
		codes[head]++
		if head == "HTTP/1.1 503 Service Unavailable" {
			continue
		}
		if head != "HTTP/1.1 200 OK" {
			t.Errorf("deaf call %d answered %q", i+1, head)
		}
	}
	if refused != codes["HTTP/1.1 503 Service Unavailable"] || codes["HTTP/1.1 200 OK"] != httpDeafConns-refused {
		t.Errorf("answers %v, %d refusals logged", codes, refused)
	}
	// The cut connections are closed: draining one meets its end.
	closedConns := 0
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := io.ReadAll(c); err == nil {
			closedConns++
		}
	}
	if closedConns < httpSessionCap {
		t.Errorf("%d deaf connections closed by the server, want at least the %d it cut", closedConns, httpSessionCap)
	}
	t.Logf("first cut %v after the calls; answers %v; %d closed", cutAfter, codes, closedConns)
	close(stop)
	wg.Wait()
	if len(rtts) < 10 {
		t.Fatalf("the healthy client made %d calls during the flood", len(rtts))
	}
	if pingErr != nil {
		t.Fatalf("the healthy client's call failed during the flood: %v", pingErr)
	}
	slices.Sort(rtts)
	t.Logf("RSS %d KiB, peak %d KiB; healthy calls %d, p50 %v, p99 %v", base, peak, len(rtts), rtts[len(rtts)/2], rtts[len(rtts)*99/100])
}
