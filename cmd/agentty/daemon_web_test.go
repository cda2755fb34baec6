package main

import (
	"bufio"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/daemon"
)

// TestDaemon_WebView: "agentty daemon -web" serves the web view beside its
// socket; "agentty web" gets the login URL over the socket; the page and
// the console answer the logged-in browser only, and the web port serves
// no MCP.
func TestDaemon_WebView(t *testing.T) {
	t.Parallel()
	h := newDaemonHome(t)
	ready, readyW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer ready.Close()
	d := h.command(t, "daemon", "-socket", h.socket, "-web", "127.0.0.1:0", "-idle", "0", "-log-file", "-", "-ready-fd", "3")
	d.ExtraFiles = []*os.File{readyW}
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	readyW.Close()
	t.Cleanup(func() { _ = d.Process.Kill(); _ = d.Wait() })
	line, _ := bufio.NewReader(ready).ReadString('\n')
	if strings.TrimSpace(line) != daemon.ReadyListening {
		t.Fatalf("daemon -web reported %q, want %q", line, daemon.ReadyListening)
	}
	s := h.serve(t, nil)
	id := startPython(t, s)

	login := webLoginURL(t, []string{standaloneEnv + "=", "AGENTTY_SOCKET=" + h.socket, "XDG_STATE_HOME=" + h.state}, "-socket", h.socket)
	u, err := url.Parse(login)
	if err != nil {
		t.Fatal(err)
	}
	base := u.Scheme + "://" + u.Host
	if code, _ := get(t, http.DefaultClient, base+"/v1/sessions"); code != http.StatusUnauthorized {
		t.Errorf("console without the cookie: %d, want 401", code)
	}
	if code, _ := get(t, http.DefaultClient, base+"/mcp"); code != http.StatusNotFound && code != http.StatusUnauthorized {
		t.Errorf("the web port answered /mcp with %d: it must serve no MCP", code)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if code, page := get(t, browser, login); code != http.StatusOK || !strings.Contains(page, "agentty") {
		t.Fatalf("login URL: %d\n%.300s", code, page)
	}
	code, list := get(t, browser, base+"/v1/sessions")
	if code != http.StatusOK || !strings.Contains(list, `"`+id+`"`) || !strings.Contains(list, "python3") {
		t.Fatalf("console after login: %d %s, want session %s", code, list, id)
	}
	// DNS rebinding: the same browser, cookie and all, under a foreign Host.
	evil := "evil.example:" + u.Port()
	for _, path := range []string{"/v1/sessions", "/", "/healthz"} {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Host = evil
		resp, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s with Host %s and the cookie: %d, want 403", path, evil, resp.StatusCode)
		}
	}
	if code, _ := get(t, (&http.Client{Jar: jar}), login); code == http.StatusOK {
		// The jar still holds the cookie, so check the URL itself was spent.
		fresh, _ := cookiejar.New(nil)
		if code, _ := get(t, &http.Client{Jar: fresh}, login); code == http.StatusOK {
			t.Errorf("the login URL worked twice")
		}
	}
}
