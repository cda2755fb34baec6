package web_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/server"
	"github.com/agentty/agentty/internal/toolcall"
	"github.com/agentty/agentty/internal/web"
	"github.com/agentty/agentty/internal/web/browsertest"
)

// urlCatcher is a log handler that hands over the URL the HTTP front end
// logs when it listens.
type urlCatcher struct{ url chan string }

func (h urlCatcher) Enabled(context.Context, slog.Level) bool { return true }
func (h urlCatcher) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h urlCatcher) WithGroup(string) slog.Handler            { return h }
func (h urlCatcher) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "web" {
			select {
			case h.url <- a.Value.String():
			default:
			}
		}
		return true
	})
	return nil
}

// realServer runs agentty's server core in process behind the HTTP front
// end (loopback, no token) and returns the page's URL and an MCP client.
func realServer(b *testing.B) (string, *mcp.ClientSession) {
	b.Helper()
	catch := urlCatcher{url: make(chan string, 1)}
	s, err := server.New(server.Config{Logger: slog.New(catch)})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, server.HTTP{Options: server.HTTPOptions{Addr: "127.0.0.1:0"}}) }()
	b.Cleanup(func() { cancel(); <-served; _ = s.Close() })
	var base string
	select {
	case base = <-catch.url:
	case err := <-served:
		b.Fatalf("serve: %v", err)
	case <-time.After(30 * time.Second):
		b.Fatal("the HTTP front end did not start")
	}
	base = base[:len(base)-1] // the logged URL ends in "/"
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return base, cs
}

// openRealSession starts argv in a PTY over MCP, logs the browser in, opens
// the session and takes its keyboard.
func openRealSession(b *testing.B, argv ...string) context.Context {
	b.Helper()
	ctx := browsertest.New(b)
	base, cs := realServer(b)
	cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var st struct {
		SessionID string `json:"session_id"`
	}
	if res, err := toolcall.Call(cctx, cs, "start_process", map[string]any{"argv": argv, "timeout_ms": 0}, &st); err != nil || res.IsError {
		b.Fatalf("start_process: %v %v", err, res)
	}
	resp, err := http.Post(base+web.LoginAPIPath, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	var login web.LoginReply
	err = json.NewDecoder(resp.Body).Decode(&login)
	resp.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	row := `#sessions tr[data-id=` + browsertest.Quote(st.SessionID) + `]`
	if err := chromedp.Run(ctx, chromedp.Navigate(login.URL)); err != nil {
		b.Fatal(err)
	}
	browsertest.WaitJS(b, ctx, 20*time.Second, `!!document.querySelector(`+browsertest.Quote(row)+`)`, `document.body.innerText`)
	if err := chromedp.Run(ctx, chromedp.Click(row, chromedp.ByQuery), chromedp.Click(`#take`, chromedp.ByQuery)); err != nil {
		b.Fatal(err)
	}
	browsertest.WaitJS(b, ctx, 20*time.Second, `agentty.view().holding && agentty.view().ws.readyState === 1`, ``)
	return ctx
}

// BenchmarkWeb_KeystrokeEcho: a key typed in the page to its echo parsed by
// xterm.js, through the real server (console stream, input lease, session
// engine, PTY) with cat echoing.
func BenchmarkWeb_KeystrokeEcho(b *testing.B) {
	ctx := openRealSession(b, "cat")
	b.ResetTimer()
	lat, err := browsertest.EchoLatency(ctx, max(b.N, 200))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(browsertest.Quantile(lat, 0.5).Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(browsertest.Quantile(lat, 0.95).Microseconds())/1000, "p95-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkWeb_StreamThroughput: seq 1 1000000 in a PTY through the real
// server's WebSocket stream into xterm.js.
func BenchmarkWeb_StreamThroughput(b *testing.B) {
	ctx := openRealSession(b, "sh", "-c", "read x; seq 1 1000000")
	b.ResetTimer()
	r, err := browsertest.Flood(ctx, "\r")
	if err != nil {
		b.Fatal(err)
	}
	if r.Bytes < 6_888_896 { // seq 1 1000000 is 6888896 bytes, more with the PTY's \r
		b.Fatalf("only %d bytes arrived", r.Bytes)
	}
	b.ReportMetric(float64(r.Bytes)/1e6/r.Arrived.Seconds(), "arrived-MB/s")
	b.ReportMetric(float64(r.Bytes)/1e6/r.Rendered.Seconds(), "rendered-MB/s")
	b.ReportMetric(float64(r.Bytes)/1e6, "MB")
	b.ReportMetric(0, "ns/op")
}
