package web

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentty/agentty/internal/web/browsertest"
)

// openHolding logs the browser in to a page over console, opens session
// id and takes its keyboard.
func openHolding(tb testing.TB, ctx context.Context, console *fakeConsole, id string) {
	tb.Helper()
	l := NewLogins()
	srv := httptest.NewServer(Handler(Options{Console: console, Logins: l}))
	tb.Cleanup(srv.Close)
	tok, _ := l.Issue()
	row := `#sessions tr[data-id="` + id + `"]`
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+LoginPath+"?t="+tok)); err != nil {
		tb.Fatal(err)
	}
	browsertest.WaitJS(tb, ctx, pageTimeout, `!!document.querySelector('`+row+`')`, `document.body.innerText`)
	if err := chromedp.Run(ctx, chromedp.Click(row, chromedp.ByQuery), chromedp.Click(`#take`, chromedp.ByQuery)); err != nil {
		tb.Fatal(err)
	}
	browsertest.WaitJS(tb, ctx, pageTimeout, `agentty.view().holding && agentty.view().ws.readyState === 1`, ``)
}

// BenchmarkPage_KeystrokeEcho: keystroke to echo in the page, over the
// fake console (a PTY relayed with no session engine behind it): the cost
// of the browser, the WebSocket and xterm.js. cmd/agentty's
// BenchmarkWeb_KeystrokeEcho measures the same through the real server.
func BenchmarkPage_KeystrokeEcho(b *testing.B) {
	ctx := browsertest.New(b)
	fc := newFakeConsole()
	fc.start(b, "cat", "pty", "cat")
	openHolding(b, ctx, fc, "cat")
	b.ResetTimer()
	lat, err := browsertest.EchoLatency(ctx, max(b.N, 200))
	if err != nil {
		b.Fatal(err)
	}
	reportLatency(b, lat)
}

// BenchmarkPage_StreamThroughput: a seq flood through the WebSocket into
// xterm.js, over the fake console.
func BenchmarkPage_StreamThroughput(b *testing.B) {
	ctx := browsertest.New(b)
	fc := newFakeConsole()
	fc.start(b, "seq", "pty", "sh", "-c", "read x; seq 1 1000000")
	openHolding(b, ctx, fc, "seq")
	b.ResetTimer()
	r, err := browsertest.Flood(ctx, "\r")
	if err != nil {
		b.Fatal(err)
	}
	reportThroughput(b, r)
}

func reportThroughput(b *testing.B, r browsertest.FloodResult) {
	if r.Bytes < 6_888_896 { // seq 1 1000000 is 6888896 bytes, more with the PTY's \r
		b.Fatalf("only %d bytes arrived", r.Bytes)
	}
	b.ReportMetric(float64(r.Bytes)/1e6/r.Arrived.Seconds(), "arrived-MB/s")
	b.ReportMetric(float64(r.Bytes)/1e6/r.Rendered.Seconds(), "rendered-MB/s")
	b.ReportMetric(float64(r.Bytes)/1e6, "MB")
	b.ReportMetric(0, "ns/op")
}

func reportLatency(b *testing.B, lat []time.Duration) {
	b.ReportMetric(float64(browsertest.Quantile(lat, 0.5).Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(browsertest.Quantile(lat, 0.95).Microseconds())/1000, "p95-ms")
	b.ReportMetric(0, "ns/op")
}
