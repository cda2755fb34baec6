package web

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentty/agentty/internal/web/browsertest"
)

// pageTimeout bounds each wait on what the page shows.
const pageTimeout = 20 * time.Second

// rowsText is the xterm's screen as text (its DOM renderer's rows).
const rowsText = `((document.querySelector('#term .xterm-rows')||{}).textContent||'')`

// TestPage_BrowserAgainstFakeConsole drives the page in headless Chromium
// against the fake console: log in, see both sessions, watch the python
// REPL, take the keyboard and type, and see a pipe session's stderr
// marked.
func TestPage_BrowserAgainstFakeConsole(t *testing.T) {
	ctx := browsertest.New(t)
	fc := newFakeConsole()
	fc.start(t, "py1", "pty", "python3", "-q")
	fc.start(t, "pipe1", "pipe", "sh", "-c", "echo to-stdout; echo to-stderr >&2; read x")
	l := NewLogins()
	srv := httptest.NewServer(Handler(Options{Console: fc, Logins: l}))
	t.Cleanup(srv.Close)
	tok, _ := l.Issue()

	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+LoginPath+"?t="+tok)); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitJS(t, ctx, pageTimeout, `location.pathname === '/' && document.querySelectorAll('#sessions tbody tr').length === 2`,
		`document.body.innerText`)

	t.Run("pipe session marks stderr", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Click(`#sessions tr[data-id="pipe1"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitJS(t, ctx, pageTimeout,
			`[...document.querySelectorAll('#log .stderr')].map(e => e.textContent).join('') === 'to-stderr\n' &&
			 [...document.querySelectorAll('#log .stdout')].map(e => e.textContent).join('') === 'to-stdout\n'`,
			`document.querySelector('#log').innerHTML`)
	})

	t.Run("python REPL: watch, take the keyboard, type", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Click(`#sessions tr[data-id="py1"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitJS(t, ctx, pageTimeout, rowsText+`.includes('>>>')`, rowsText)
		// Read-only until taken: a key pressed now must not reach python.
		if err := chromedp.Run(ctx, chromedp.Click(`#term`, chromedp.ByQuery), browsertest.Type("1")); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Run(ctx, chromedp.Click(`#take`, chromedp.ByQuery), browsertest.Type("print(6*7)\r")); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitJS(t, ctx, pageTimeout, `/^42\s*$/m.test([...document.querySelectorAll('#term .xterm-rows > div')].map(d => d.textContent).join('\n'))`, rowsText)
		browsertest.WaitJS(t, ctx, pageTimeout, `document.querySelector('#view-holder').textContent === 'keyboard: web'`,
			`document.querySelector('#view-holder').textContent`)
		var screen string
		if err := chromedp.Run(ctx, chromedp.Evaluate(rowsText, &screen)); err != nil {
			t.Fatal(err)
		}
		if want := ">>> print(6*7)"; !strings.Contains(screen, want) {
			t.Errorf("screen %q lacks %q: the key pressed before taking the keyboard went in", screen, want)
		}
		browsertest.Screenshot(t, ctx, "web-fake-console.png")
	})
}
