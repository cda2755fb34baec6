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
	slow := fc.start(t, "slow", "pty", "sh", "-c", "printf 'only once'; read x")
	slow.behind = 2
	fc.past("old1", "vim notes.txt", `{"version":2,"width":40,"height":5}`+"\n"+`[0.1,"o","recorded \u001b[1mbold\u001b[0m line\r\n"]`+"\n"+`[0.2,"r","50x6"]`+"\n")
	l := NewLogins()
	srv := httptest.NewServer(Handler(Options{Console: fc, Logins: l}))
	t.Cleanup(srv.Close)
	tok, _ := l.Issue()

	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+LoginPath+"?t="+tok)); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitJS(t, ctx, pageTimeout, `location.pathname === '/' && document.querySelectorAll('#sessions tbody tr').length === 4`,
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
		// The terminal takes the session's size, not the window's.
		browsertest.WaitJS(t, ctx, pageTimeout, `agentty.view().term.cols === 100 && agentty.view().term.rows === 30`,
			`agentty.view().term.cols + 'x' + agentty.view().term.rows`)
		// Read-only until taken: a key pressed now must not reach python.
		if err := chromedp.Run(ctx, chromedp.Click(`#term`, chromedp.ByQuery), browsertest.Type("1")); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitJS(t, ctx, pageTimeout, `document.querySelector('#view-note').textContent.startsWith('read-only')`,
			`document.querySelector('#view-note').textContent`)
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

	t.Run("a stream that fell behind reconnects and replays once", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Click(`#sessions tr[data-id="slow"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitJS(t, ctx, pageTimeout, `(`+rowsText+`.match(/only once/g) || []).length === 1 && agentty.view().retries === 2 && agentty.view().ws.readyState === 1 && document.querySelector('#view-note').textContent === ''`,
			rowsText+` + ' | ' + document.querySelector('#view-note').textContent + ' | ' + agentty.view().retries`)
	})

	t.Run("past session replays its recording", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Click(`#sessions tr[data-id="old1"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitJS(t, ctx, pageTimeout, rowsText+`.startsWith('recorded bold line') && agentty.view().term.cols === 50 && !document.querySelector('#replay').hidden && document.querySelector('#take').hidden`,
			rowsText+` + ' ' + agentty.view().term.cols`)
	})

	t.Run("search finds a line and opens its session", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.SetValue(`#q`, "to-stderr", chromedp.ByQuery), chromedp.Click(`#search button`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitJS(t, ctx, pageTimeout, `document.querySelector('#results-info').textContent === '1 match' &&
			/^pipe1:[12]to-stderr$/.test(document.querySelector('#results-list li').textContent)`, `document.querySelector('#results').innerText`)
		if err := chromedp.Run(ctx, chromedp.Click(`#results-list li`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitJS(t, ctx, pageTimeout, `agentty.view().id === 'pipe1' && document.querySelector('#log').textContent.includes('to-stderr')`, `document.querySelector('#view').innerText`)
	})
}
