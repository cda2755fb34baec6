package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentty/agentty/internal/daemon"
	"github.com/agentty/agentty/internal/toolcall"
	webview "github.com/agentty/agentty/internal/web"
	"github.com/agentty/agentty/internal/web/browsertest"
)

// webLoginURL runs "agentty web" with args and returns the URL it prints.
func webLoginURL(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := selfCommand(t, append([]string{"web", "-no-open"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agentty web %v: %v\n%s", args, err, stderr.String())
	}
	url := strings.TrimSpace(string(out))
	if !strings.Contains(url, "/login?t=") || strings.Count(url, "\n") != 0 {
		t.Fatalf("agentty web printed %q, want one login URL", out)
	}
	return url
}

func get(t *testing.T, c *http.Client, url string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestWeb_LoginAndAuth: "agentty web -http" gets a one-time URL from a
// server with a token; without the cookie the page and the console answer
// 401; the URL logs a browser in once; a foreign Origin on the stream is
// refused with 403 even with the cookie.
func TestWeb_LoginAndAuth(t *testing.T) {
	t.Parallel()
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("web-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startHTTPServer(t, nil, "-token-file", tokenFile)
	base := strings.TrimSuffix(s.url, "/mcp")

	t.Run("no token", func(t *testing.T) {
		cmd := selfCommand(t, "web", "-http", base)
		cmd.Env = append(cmd.Env, tokenEnv+"=")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "401") || !strings.Contains(string(out), "Bearer") {
			t.Fatalf("agentty web without the token: %v\n%s", err, out)
		}
	})
	t.Run("no daemon", func(t *testing.T) {
		cmd := selfCommand(t, "web")
		cmd.Env = append(cmd.Env, "XDG_RUNTIME_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "agentty web: no agentty daemon runs: ") {
			t.Fatalf("agentty web without a daemon: %v\n%s", err, out)
		}
	})

	t.Run("daemon socket", func(t *testing.T) {
		// What the daemon answers on its socket: the web view's URL and
		// a login URL from the Logins its web listener shares.
		runtime := t.TempDir()
		sock := filepath.Join(runtime, "agentty", "agentty.sock")
		if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		logins := webview.NewLogins()
		mux := http.NewServeMux()
		mux.HandleFunc("POST "+daemon.WebPath, func(w http.ResponseWriter, _ *http.Request) {
			l := logins.NewLogin("http://127.0.0.1:4242")
			_ = json.NewEncoder(w).Encode(daemon.WebReply{URL: "http://127.0.0.1:4242", Login: l.URL, Expires: l.Expires})
		})
		hs := &http.Server{Handler: mux}
		go func() { _ = hs.Serve(ln) }()
		t.Cleanup(func() { _ = hs.Close() })
		for _, args := range [][]string{{"-socket", sock}, nil} {
			url := webLoginURL(t, []string{"XDG_RUNTIME_DIR=" + runtime}, args...)
			tok, ok := strings.CutPrefix(url, "http://127.0.0.1:4242/login?t=")
			if !ok {
				t.Fatalf("agentty web %v printed %q", args, url)
			}
			if _, ok := logins.Redeem(tok); !ok {
				t.Fatalf("the token agentty web %v printed does not redeem", args)
			}
		}
	})

	url := webLoginURL(t, nil, "-http", base, "-token-file", tokenFile)
	for _, path := range []string{"/", "/v1/sessions", "/v1/sessions/x/stream"} {
		if code, body := get(t, http.DefaultClient, base+path); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the cookie: %d %.100q, want 401", path, code, body)
		}
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if code, body := get(t, browser, url); code != http.StatusOK || !strings.Contains(body, "/assets/app.js") {
		t.Fatalf("opening the login URL: %d %.200q", code, body)
	}
	if code, _ := get(t, &http.Client{}, url); code != http.StatusUnauthorized {
		t.Errorf("the login URL opened twice: %d, want 401", code)
	}
	if code, body := get(t, browser, base+"/v1/sessions/x/stream", "Origin", "http://evil.example",
		"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="); code != http.StatusForbidden {
		t.Errorf("stream with a foreign Origin: %d %.100q, want 403", code, body)
	}
	if code, body := get(t, browser, base+"/v1/sessions"); code == http.StatusUnauthorized {
		t.Errorf("console with the cookie: %d %.100q", code, body)
	}
}

// TestWeb_BrowserDrivesPythonREPL: an agent starts python3 over MCP; a
// person opens the login URL in headless Chromium, sees the session in the
// list, opens it, sees the prompt, takes the keyboard, types print(6*7)
// and sees 42 in the page, which the agent then reads too.
func TestWeb_BrowserDrivesPythonREPL(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t)
	// The server generates its token in the state directory it shares
	// with agentty web, which finds it there, as in docs/web.md.
	env := []string{tokenEnv + "=", "XDG_STATE_HOME=" + t.TempDir()}
	s := startHTTPServer(t, env)
	base := strings.TrimSuffix(s.url, "/mcp")
	jar, _ := cookiejar.New(nil)
	probe := &http.Client{Jar: jar}
	get(t, probe, webLoginURL(t, env, "-http", base))
	if code, body := get(t, probe, base+"/v1/sessions"); code == http.StatusServiceUnavailable {
		t.Skipf("the server has no console API yet (Endpoint.Console is nil): %s", body)
	}
	cs := s.connect(s.bannerToken())
	cctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var st readResult
	if res, err := toolcall.Call(cctx, cs, "start_process", map[string]any{"argv": []string{"python3", "-q"}, "until": ">>> "}, &st); err != nil || res.IsError {
		t.Fatalf("start_process: %v %v", err, res)
	}
	url := webLoginURL(t, env, "-http", base)

	const rows = `((document.querySelector('#term .xterm-rows')||{}).textContent||'')`
	row := `#sessions tr[data-id=` + browsertest.Quote(st.SessionID) + `]`
	if err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitJS(t, ctx, 20*time.Second, `!!document.querySelector(`+browsertest.Quote(row)+`)`, `document.body.innerText`)
	if err := chromedp.Run(ctx, chromedp.Click(row, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitJS(t, ctx, 20*time.Second, rows+`.includes('>>>')`, rows)
	// Read-only until taken: this key must not reach python.
	if err := chromedp.Run(ctx, chromedp.Click(`#term`, chromedp.ByQuery), browsertest.Type("1")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#take`, chromedp.ByQuery), browsertest.Type("print(6*7)\r")); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitJS(t, ctx, 20*time.Second,
		`/^42\s*$/m.test([...document.querySelectorAll('#term .xterm-rows > div')].map(d => d.textContent).join('\n'))`, rows)
	browsertest.Screenshot(t, ctx, "web-shot.png")

	var rd readResult
	if res, err := toolcall.Call(cctx, cs, "read_output", map[string]any{"session_id": st.SessionID, "reader_id": st.ReaderID, "until": "42"}, &rd); err != nil || res.IsError {
		t.Fatalf("read_output: %v %v", err, res)
	}
	if !strings.HasPrefix(rd.Output, "print(6*7)\n42\n") {
		t.Errorf("the agent read %q, want the person's print(6*7) (nothing typed before taking the keyboard) and 42", rd.Output)
	}

	// While the page holds the keyboard the agent is refused; after
	// "Hand the keyboard back" it types again.
	send := map[string]any{"session_id": st.SessionID, "text": "print(7*6)", "enter": true, "until": "42"}
	res, err := toolcall.Call(cctx, cs, "send_input", send, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(textOf(res), "via web") {
		t.Fatalf("send_input while the page holds the keyboard: %s, want refused naming web", textOf(res))
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#release`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitJS(t, ctx, 20*time.Second, `document.querySelector('#view-holder').textContent === 'keyboard: free'`,
		`document.querySelector('#view-holder').textContent`)
	if res, err = toolcall.Call(cctx, cs, "send_input", send, nil); err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("send_input after the page handed the keyboard back: %s", textOf(res))
	}

	// Killed, the session says by which signal, in the list and the view.
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/sessions/"+st.SessionID+"/kill", nil)
	resp, err := probe.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("kill: HTTP %d", resp.StatusCode)
	}
	killed := browsertest.Quote(fmt.Sprintf("killed by SIGTERM (signal %d)", int(syscall.SIGTERM)))
	browsertest.WaitJS(t, ctx, 20*time.Second, `document.querySelector('#view-note').textContent === `+killed+` &&
		document.querySelector('#view-state').textContent === `+killed+` &&
		document.querySelector(`+browsertest.Quote(row+` td.state`)+`).textContent === `+killed,
		`document.querySelector('#view-note').textContent + ' | ' + document.querySelector('#view-state').textContent + ' | ' + document.querySelector(`+browsertest.Quote(row+` td.state`)+`).textContent`)
}
