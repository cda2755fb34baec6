package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agentty/agentty/internal/web/browsertest"
)

// ruler is a line of exactly 120 columns whose last one is "E": the
// program the PTY view is measured on prints it.
var ruler = strings.Repeat("123456789.", 12)[:119] + "E"

// overflowJS lists the rendered elements whose content is wider than
// their box, outside xterm.js's own: clipped, spilling over, or scrolling
// sideways. A cut command (ellipsis) is by design; the terminal's box may
// scroll only when allowed (a phone).
const overflowJS = `((termScrolls) => {
  const bad = [], de = document.documentElement;
  if (de.scrollWidth > de.clientWidth) bad.push('page: ' + de.scrollWidth + ' > ' + de.clientWidth);
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('.xterm') || !el.getClientRects().length) continue;
    const cs = getComputedStyle(el);
    if (cs.display === 'inline' || cs.textOverflow === 'ellipsis') continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    if (el.id === 'term' && termScrolls) continue;
    bad.push((el.id ? '#' + el.id : el.tagName.toLowerCase() + '.' + el.className) + ' (' + el.textContent.slice(0, 20) + '): ' + el.scrollWidth + ' > ' + el.clientWidth);
  }
  return bad;
})(%t)`

// lastColumnJS is the ruler's last character's box and the terminal
// box's inner box (left, right) and the viewport's width, with the
// terminal's box scrolled to its far right if asked (a phone) or as the
// page left it.
const lastColumnJS = `((scroll) => {
  const box = document.querySelector('#term');
  if (scroll) box.scrollLeft = box.scrollWidth;
  const row = [...document.querySelectorAll('#term .xterm-rows > div')].find((d) => d.textContent.includes(` + "'" + `%s` + "'" + `));
  if (!row) return null;
  const walk = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
  let at = 0, n;
  while ((n = walk.nextNode())) {
    if (at + n.length > 119) {
      const r = document.createRange();
      r.setStart(n, 119 - at); r.setEnd(n, 120 - at);
      const c = r.getBoundingClientRect(), b = box.getBoundingClientRect();
      const x = box.querySelector('.xterm').getBoundingClientRect(), sc = box.querySelector('.xterm-screen').getBoundingClientRect();
      return [c.left, c.right, b.left + box.clientLeft, b.left + box.clientLeft + box.clientWidth, innerWidth, r.toString().charCodeAt(0),
        box.scrollLeft, box.scrollWidth, box.clientWidth, x.left, x.right, sc.left, sc.right];
    }
    at += n.length;
  }
  return null;
})(%t)`

// run runs actions, bounded by pageTimeout: a click waits for its element
// to be visible, which must not hang the test.
func run(ctx context.Context, actions ...chromedp.Action) error {
	ctx, cancel := context.WithTimeout(ctx, pageTimeout)
	defer cancel()
	return chromedp.Run(ctx, actions...)
}

// TestPage_Layout shows each view at a laptop's, a desktop's and a phone's
// size, saves a screenshot of each and checks the layout from the DOM:
// no element wider than its box, the whole of the list's header, the
// terminal's every column visible (font scaled to the pane, scrolled on a
// phone) without a resize of the session, search results in view, and
// states that say how a session ended.
func TestPage_Layout(t *testing.T) {
	ctx := browsertest.New(t)
	fc := newFakeConsole()
	wide := fc.startSized(t, "wide", "pty", 40, 120, "sh", "-c", "printf '%s\\n' '"+ruler+"'; read x")
	fc.start(t, "pipe1", "pipe", "sh", "-c", "echo to-stdout; echo to-stderr >&2; read x")
	fc.start(t, "killed", "pipe", "sh", "-c", "echo bye; kill -TERM $$")
	fc.start(t, "two", "pipe", "sh", "-c", "echo two; exit 2")
	l := NewLogins()
	srv := httptest.NewServer(Handler(Options{Console: fc, Logins: l}))
	t.Cleanup(srv.Close)
	tok, _ := l.Issue()
	if err := run(ctx, chromedp.Navigate(srv.URL+LoginPath+"?t="+tok)); err != nil {
		t.Fatal(err)
	}
	killedText := fmt.Sprintf("killed by SIGTERM (signal %d)", int(syscall.SIGTERM))
	stateOf := func(id string) string {
		return `(document.querySelector('#sessions tr[data-id="` + id + `"] td.state') || {}).textContent`
	}

	for _, size := range []struct {
		name  string
		w, h  int64
		phone bool
	}{{"1280x800", 1280, 800, false}, {"1920x1080", 1920, 1080, false}, {"390x844", 390, 844, true}} {
		t.Run(size.name, func(t *testing.T) {
			emulate := chromedp.EmulateViewport(size.w, size.h)
			if size.phone {
				emulate = chromedp.EmulateViewport(size.w, size.h, chromedp.EmulateScale(2), chromedp.EmulateMobile)
			}
			if err := run(ctx, emulate, chromedp.Navigate(srv.URL+"/")); err != nil {
				t.Fatal(err)
			}
			shot := func(t *testing.T, view string) {
				browsertest.Screenshot(t, ctx, "web-layout-"+size.name+"-"+view+".png")
			}
			noOverflow := func(t *testing.T) {
				t.Helper()
				var bad []string
				if err := run(ctx, chromedp.Evaluate(fmt.Sprintf(overflowJS, size.phone), &bad)); err != nil {
					t.Fatal(err)
				}
				if len(bad) > 0 {
					t.Errorf("elements wider than their box:\n%s", strings.Join(bad, "\n"))
				}
			}
			open := func(t *testing.T, id string) {
				t.Helper()
				if err := run(ctx, chromedp.Click(`#sessions tr[data-id="`+id+`"]`, chromedp.ByQuery)); err != nil {
					t.Fatal(err)
				}
				browsertest.WaitJS(t, ctx, pageTimeout, `agentty.view() && agentty.view().id === '`+id+`'`, `document.querySelector('#view').innerText`)
			}

			t.Run("list", func(t *testing.T) {
				browsertest.WaitJS(t, ctx, pageTimeout, stateOf("killed")+` === '`+killedText+`' && `+stateOf("two")+` === 'exited 2' && `+stateOf("wide")+` === 'running'`,
					`document.querySelector('#sessions').innerText`)
				// The header's last column whole, inside the list and the screen.
				var ok bool
				js := `(() => { const th = document.querySelector('#sessions thead th:last-child'), p = document.querySelector('#list-pane');
				  const r = th.getBoundingClientRect(), q = p.getBoundingClientRect();
				  return th.textContent === 'keyboard' && th.scrollWidth <= th.clientWidth && r.right <= q.right + 0.5 && r.right <= innerWidth; })()`
				if err := run(ctx, chromedp.Evaluate(js, &ok)); err != nil || !ok {
					var shown string
					_ = run(ctx, chromedp.Evaluate(`JSON.stringify([document.querySelector('#sessions thead th:last-child').getBoundingClientRect(), document.querySelector('#list-pane').getBoundingClientRect(), innerWidth])`, &shown))
					t.Errorf("the keyboard column's header is cut (%v): th, list, viewport %s", err, shown)
				}
				noOverflow(t)
				shot(t, "list")
			})

			t.Run("PTY session shows all 120 columns", func(t *testing.T) {
				open(t, "wide")
				browsertest.WaitJS(t, ctx, pageTimeout, rowsText+`.includes('`+ruler+`') && agentty.view().term.cols === 120`, rowsText)
				var box []float64
				lastColumn := fmt.Sprintf(lastColumnJS, ruler, size.phone)
				browsertest.WaitJS(t, ctx, pageTimeout, lastColumn+` !== null`, rowsText)
				if err := run(ctx, chromedp.Evaluate(lastColumn, &box)); err != nil {
					t.Fatal(err)
				}
				if box[5] != 'E' || box[0] < box[2]-0.5 || box[1] > box[3]+0.5 || box[1] > box[4] {
					t.Errorf("the 120th column (char %q at %.1f..%.1f) is outside the terminal's box %.1f..%.1f (viewport %v); box scroll left, width, client width %v, xterm %v, screen %v",
						rune(box[5]), box[0], box[1], box[2], box[3], box[4], box[6:9], box[9:11], box[11:13])
				}
				var font float64
				var scrolls bool
				if err := run(ctx, chromedp.Evaluate(`agentty.view().term.options.fontSize`, &font),
					chromedp.Evaluate(`(b => b.scrollWidth > b.clientWidth)(document.querySelector('#term'))`, &scrolls)); err != nil {
					t.Fatal(err)
				}
				t.Logf("a 120-column terminal at %s: font %vpx, box scrolls %v", size.name, font, scrolls)
				// Scaled to fit on a screen with the room; at the legible
				// minimum, scrolling, on a phone.
				if size.phone && (font != 9 || !scrolls) || !size.phone && (font < 9 || font > 14 || scrolls) {
					t.Errorf("font %vpx, box scrolls %v", font, scrolls)
				}
				noOverflow(t)
				if err := run(ctx, chromedp.Evaluate(`document.querySelector('#term').scrollLeft = 0`, nil)); err != nil {
					t.Fatal(err)
				}
				shot(t, "pty")
			})

			t.Run("pipe session's log, nothing above it", func(t *testing.T) {
				open(t, "pipe1")
				browsertest.WaitJS(t, ctx, pageTimeout, `document.querySelector('#log').textContent.includes('to-stderr') &&
					document.querySelector('#term').getClientRects().length === 0 &&
					document.querySelector('#log').getBoundingClientRect().top - document.querySelector('#view-bar').getBoundingClientRect().bottom < 16`,
					`JSON.stringify([document.querySelector('#term').getBoundingClientRect(), document.querySelector('#log').getBoundingClientRect()])`)
				noOverflow(t)
				shot(t, "pipe")
			})

			t.Run("search results in view", func(t *testing.T) {
				if err := run(ctx, chromedp.SetValue(`#q`, "to-std", chromedp.ByQuery), chromedp.Click(`#search button`, chromedp.ByQuery)); err != nil {
					t.Fatal(err)
				}
				browsertest.WaitJS(t, ctx, pageTimeout, `document.querySelector('#results-info').textContent === '2 matches' &&
					(r => r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth)(document.querySelector('#results-list li:last-child').getBoundingClientRect()) &&
					(r => r.top >= 0 && r.top < innerHeight)(document.querySelector('#results').getBoundingClientRect())`,
					`JSON.stringify([document.querySelector('#results').getBoundingClientRect(), scrollY, innerHeight])`)
				noOverflow(t)
				shot(t, "search")
				if err := run(ctx, chromedp.Click(`#results-close`, chromedp.ByQuery)); err != nil {
					t.Fatal(err)
				}
			})

			t.Run("a session killed by a signal says which", func(t *testing.T) {
				open(t, "killed")
				browsertest.WaitJS(t, ctx, pageTimeout, `document.querySelector('#view-state').textContent === '`+killedText+`' &&
					document.querySelector('#view-note').textContent === '`+killedText+`' && document.querySelector('#log').textContent === 'bye\n'`,
					`document.querySelector('#view').innerText`)
				noOverflow(t)
				shot(t, "killed")
			})
		})
	}

	t.Run("the list collapses, remembered", func(t *testing.T) {
		if err := run(ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(srv.URL+"/#s=wide")); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitJS(t, ctx, pageTimeout, rowsText+`.includes('`+ruler+`') && !document.querySelector('#list-pane').hidden`, rowsText)
		var before, after float64
		if err := run(ctx, chromedp.Evaluate(`agentty.view().term.options.fontSize`, &before),
			chromedp.Click(`#list-toggle`, chromedp.ByQuery), chromedp.Reload()); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitJS(t, ctx, pageTimeout, rowsText+`.includes('`+ruler+`') && document.querySelector('#list-pane').hidden && document.querySelector('#side').hidden &&
			document.querySelector('#list-toggle').textContent === 'Sessions (4)'`, `document.querySelector('header').innerText`)
		if err := run(ctx, chromedp.Evaluate(`agentty.view().term.options.fontSize`, &after)); err != nil {
			t.Fatal(err)
		}
		if after <= before {
			t.Errorf("with the list collapsed the terminal's font is %vpx, with it %vpx: the pane did not take the room", after, before)
		}
		browsertest.Screenshot(t, ctx, "web-layout-1280x800-collapsed.png")
		if err := run(ctx, chromedp.Click(`#list-toggle`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitJS(t, ctx, pageTimeout, `!document.querySelector('#list-pane').hidden && localStorage.getItem('agentty.list') === null`, `document.querySelector('header').innerText`)
	})

	t.Run("the session's size changes only when the person asks", func(t *testing.T) {
		if n := wide.resizeCount(); n != 0 {
			t.Fatalf("the page resized the session %d times by itself", n)
		}
		if err := run(ctx, chromedp.Click(`#fit`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		rows, cols := wide.lastResize(t)
		// At the full font, a 1280-pixel window holds fewer than 120
		// columns beside the list.
		if rows < 5 || cols < 40 || cols >= 120 {
			t.Errorf("fit asked for %dx%d", cols, rows)
		}
	})
}
