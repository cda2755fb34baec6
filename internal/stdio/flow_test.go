package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/logbuf"
)

// flowServer runs an MCP server on a Transport over two OS pipes (pollable,
// like a client's stdio) with a "big" tool whose reply is 64 KiB, and
// counts the calls its handlers started.
type flowServer struct {
	in      *os.File // the client's end of the server's input
	out     *os.File // the client's end of the server's output
	r       *bufio.Reader
	started chan struct{} // one per handler started
	done    chan struct{}
	err     error // Run's, once done is closed
	log     *logbuf.Buffer
}

type bigIn struct {
	Wait bool `json:"wait"`
}

func startFlow(t *testing.T, lim Limits, release <-chan struct{}) *flowServer {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &flowServer{in: inW, out: outR, r: bufio.NewReaderSize(outR, 1<<20), started: make(chan struct{}, 1000), done: make(chan struct{}), log: &logbuf.Buffer{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	big := strings.Repeat("x", 64<<10)
	mcp.AddTool(srv, &mcp.Tool{Name: "big"}, func(ctx context.Context, _ *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, echoOut, error) {
		s.started <- struct{}{}
		if in.Wait {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, echoOut{}, ctx.Err()
			}
		}
		return nil, echoOut{Text: big}, nil
	})
	tr := &Transport{In: inR, Out: outW, Limits: lim, Logger: slog.New(slog.NewTextHandler(s.log, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { s.err = srv.Run(ctx, tr); outW.Close(); close(s.done) }()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
		outR.Close()
	})
	s.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	s.reply(t)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *flowServer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatalf("server stopped reading: %v", err)
	}
}

// trySend writes line unless the server has not taken it within d.
func (s *flowServer) trySend(line string, d time.Duration) error {
	_ = s.in.SetWriteDeadline(time.Now().Add(d))
	defer s.in.SetWriteDeadline(time.Time{})
	_, err := io.WriteString(s.in, line+"\n")
	return err
}

func (s *flowServer) reply(t *testing.T) map[string]any {
	t.Helper()
	line, err := s.r.ReadString('\n')
	if err != nil {
		t.Fatalf("no reply (server ended: %v)", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("reply is not JSON: %v: %.200s", err, line)
	}
	return m
}

// waitStarted waits for n more handlers to start.
func (s *flowServer) waitStarted(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		select {
		case <-s.started:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d handlers started", i, n)
		}
	}
}

func callBig(id int, wait bool) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{"wait":%t}}}`, id, wait)
}

// TestFlow_DeafClientIsBoundedThenDisconnected: a client that sends calls
// and never reads its replies gets at most Calls of them run; then its
// requests are no longer read (its writes block), and once it has not
// drained for Stall the connection is closed with a log line.
func TestFlow_DeafClientIsBoundedThenDisconnected(t *testing.T) {
	lim := Limits{Calls: 4, Queued: 3, Pending: 1 << 20, Stall: 300 * time.Millisecond}
	s := startFlow(t, lim, nil)
	// 1000 calls of 1 KiB: more than the pipe and the reader's buffer
	// hold, so the server has to stop reading for a send to block.
	sent, pad := 0, strings.Repeat(" ", 1024)
	for ; sent < 1000; sent++ {
		if err := s.trySend(callBig(sent+1, false)+pad, 500*time.Millisecond); err != nil {
			break
		}
	}
	if sent == 1000 {
		t.Fatalf("the server read all 1000 calls of a client that reads nothing; started %d; log:\n%s", len(s.started), s.log.String())
	}
	select {
	case <-s.done:
		t.Logf("server ended: %v", s.err)
	case <-time.After(10 * time.Second):
		t.Fatalf("a client stalled at the caps was not disconnected; log:\n%s", s.log.String())
	}
	if n := len(s.started); n > lim.Calls {
		t.Errorf("%d calls ran for a client that read no reply; want at most %d", n, lim.Calls)
	}
	if l := s.log.String(); !strings.Contains(l, "client is not reading its replies: disconnected") || !strings.Contains(l, "calls_in_flight=4") {
		t.Errorf("no disconnect line in the log:\n%s", l)
	}
	// What it wrote before it was cut off comes in order, then the end.
	for id := 1; ; id++ {
		line, err := s.r.ReadString('\n')
		if err != nil {
			break
		}
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["id"] != float64(id) {
			t.Fatalf("reply %d: %.200s", id, line)
		}
	}
}

// TestFlow_CallsWaitForASlot: past the call cap, further calls wait and
// run as slots free, in order, with nothing lost. A cancellation reaches a
// call in flight (the cap does not hold it back), and cancelling a call
// that still waits for a slot drops it: it never runs.
func TestFlow_CallsWaitForASlot(t *testing.T) {
	release := make(chan struct{})
	s := startFlow(t, Limits{Calls: 2}, release)
	s.send(t, callBig(1, true))
	s.send(t, callBig(2, true))
	s.waitStarted(t, 2)
	s.send(t, callBig(3, true)) // waits for a slot
	s.send(t, callBig(4, true)) // waits for a slot, then is cancelled
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	// Call 2's cancellation reached its handler: its error reply frees a
	// slot for call 3, which now waits in its handler too.
	r := s.reply(t)
	if res, _ := r["result"].(map[string]any); r["id"] != float64(2) || res["isError"] != true && r["error"] == nil {
		t.Fatalf("reply to the cancelled call 2: %.200v", r)
	}
	s.waitStarted(t, 1)          // call 3, in 2's slot
	s.send(t, callBig(4, false)) // id 4 is free again: its call was dropped
	close(release)
	got := map[float64]bool{}
	for range 3 {
		r := s.reply(t)
		if r["result"] == nil {
			t.Fatalf("reply: %.200v", r)
		}
		got[r["id"].(float64)] = true
	}
	if !got[1] || !got[3] || !got[4] {
		t.Fatalf("replies to %v; want 1, 3 and 4", got)
	}
	if n := len(s.started); n != 1 {
		t.Fatalf("%d more handlers started; want 1 (call 4 again): the cancelled one ran", n)
	}
	s.send(t, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if r := s.reply(t); r["id"] != float64(9) {
		t.Fatalf("ping after: %v", r)
	}
	if l := s.log.String(); strings.Contains(l, "disconnected") {
		t.Fatalf("a client that reads was disconnected:\n%s", l)
	}
}

// TestFlow_DuplicateIDIsRefused: a second call with the id of one in
// flight is answered with an error (the SDK would drop it unanswered).
func TestFlow_DuplicateIDIsRefused(t *testing.T) {
	release := make(chan struct{})
	s := startFlow(t, Limits{}, release)
	s.send(t, callBig(1, true))
	s.send(t, callBig(1, false))
	r := s.reply(t)
	e, _ := r["error"].(map[string]any)
	if r["id"] != float64(1) || e == nil || !strings.Contains(e["message"].(string), "id 1 is already in use") {
		t.Fatalf("duplicate id: %.300v", r)
	}
	close(release)
	if r := s.reply(t); r["id"] != float64(1) || r["result"] == nil {
		t.Fatalf("the first call: %.200v", r)
	}
}
