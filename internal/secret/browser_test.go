package secret

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentty/agentty/internal/web/browsertest"
)

// TestPages_BrowserAnswers: the person's part in a real browser (headless
// Chromium): the page shows who asks and the prompt, the typed secret
// arrives exactly, the page it lands on does not echo it, and the URL is
// spent afterwards.
func TestPages_BrowserAnswers(t *testing.T) {
	ctx := browsertest.New(t)
	p := New(Options{})
	t.Cleanup(func() { _ = p.Close() })
	pg, err := p.Open(Info{Session: "s9", Command: "ssh -p 2222 dev@127.0.0.1", Prompt: "dev@127.0.0.1's password: "})
	if err != nil {
		t.Fatal(err)
	}
	const typed = "correct horse battery staple 9"
	if err := chromedp.Run(ctx, chromedp.Navigate(pg.URL)); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitJS(t, ctx, 10*time.Second,
		`document.body.innerText.includes("s9") && document.body.innerText.includes("ssh -p 2222 dev@127.0.0.1") && document.body.innerText.includes("password:")`,
		`document.body.innerText`)
	if err := chromedp.Run(ctx,
		chromedp.SendKeys(`input[name=secret]`, typed, chromedp.ByQuery),
		chromedp.Click(`button[value=send]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	got, err := wait(t, pg)
	if err != nil || string(got) != typed {
		t.Fatalf("the page delivered %q, %v; want %q", got, err, typed)
	}
	var after string
	browsertest.WaitJS(t, ctx, 10*time.Second, `document.readyState === "complete" && !document.querySelector("input[name=secret]")`, `document.body.innerText`)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.documentElement.outerHTML`, &after)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(after, typed) {
		t.Fatalf("the page after sending shows the secret:\n%s", after)
	}
	res, err := http.Get(pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode == http.StatusOK {
		t.Fatalf("the spent URL still answers %d", res.StatusCode)
	}
}
