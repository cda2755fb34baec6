// Package browsertest starts a headless Chromium for tests of the web view
// and helps them wait on what the page shows. Only tests import it.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// ChromiumEnv names a Chromium binary to use instead of the one on PATH.
const ChromiumEnv = "AGENTTY_TEST_CHROMIUM"

// ArtifactsEnv names the directory screenshots are saved in; unset, they
// go to testdata/artifacts in the test's package (ignored by git).
const ArtifactsEnv = "AGENTTY_TEST_ARTIFACTS"

// Chromium finds the browser: $AGENTTY_TEST_CHROMIUM, else Debian's
// chromium (or another common name) on PATH.
func Chromium() (string, error) {
	if p := os.Getenv(ChromiumEnv); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on PATH (Debian: apt-get install chromium; scripts/test installs it as root), or set $%s", ChromiumEnv)
}

// New starts a headless Chromium with its own temporary profile and
// returns a tab's context; the browser is closed when the test ends. The
// test is skipped when no Chromium is installed.
func New(t testing.TB) context.Context {
	t.Helper()
	bin, err := Chromium()
	if err != nil {
		t.Skip(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	// Closing the browser gracefully waits for it to exit, so its profile
	// directory is no longer written when the test removes it.
	t.Cleanup(func() { _ = chromedp.Cancel(ctx); cancel(); cancelAlloc() })
	// Start the browser now, so a broken install fails here and not in
	// the first step of the test.
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	return ctx
}

// WaitJS evaluates expr (JavaScript returning a boolean) until it is true,
// failing the test after timeout with what last evaluated and, if given,
// the value of show (JavaScript returning a string) to say what the page
// showed instead.
func WaitJS(t testing.TB, ctx context.Context, timeout time.Duration, expr, show string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for {
		var ok bool
		err := chromedp.Run(ctx, chromedp.Evaluate(expr, &ok))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			var shown string
			if show != "" {
				_ = chromedp.Run(ctx, chromedp.Evaluate(show, &shown))
			}
			t.Fatalf("after %v the page still does not satisfy %s (last error %v); it shows:\n%s", timeout, expr, err, shown)
		}
		<-poll.C
	}
}

// Screenshot saves a PNG of the whole page as name in the artifacts
// directory ($AGENTTY_TEST_ARTIFACTS, else testdata/artifacts), so it
// outlives the test, and logs its path.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv(ArtifactsEnv)
	if dir == "" {
		dir = filepath.Join("testdata", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artifacts directory: %v", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
	return path
}

// Type types s into the focused element the way a keyboard does: per
// character one keyDown carrying its text, then keyUp ("\r" is Enter).
// chromedp.KeyEvent sends the text in a separate char event as well,
// which xterm.js takes as a second keystroke.
func Type(s string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		for _, r := range s {
			key, code, vk := string(r), "", int64(0)
			if r == '\r' || r == '\n' {
				key, code, vk = "Enter", "Enter", 13
			}
			down := input.DispatchKeyEvent(input.KeyDown).WithKey(key).WithText(string(r))
			up := input.DispatchKeyEvent(input.KeyUp).WithKey(key)
			if code != "" {
				down, up = down.WithCode(code).WithWindowsVirtualKeyCode(vk).WithText("\r"), up.WithCode(code).WithWindowsVirtualKeyCode(vk)
			}
			if err := down.Do(ctx); err != nil {
				return err
			}
			if err := up.Do(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

// Quote makes s a JavaScript string literal.
func Quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`).Replace(s) + "'"
}
