package httpserver

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/web"
)

// Every route of a loopback listener refuses a Host that is not loopback
// (DNS rebinding), with the login cookie or the token too, as go-sdk does
// for /mcp: the web page, the console API, the login URL and /healthz, on
// serve -http and on a web-only (daemon -web) listener alike.
func TestHostCheck_EveryRoute(t *testing.T) {
	const token = "tok"
	tokened := startServer(t, &Options{Console: consoleStub, Token: token})
	open := startServer(t, &Options{Console: consoleStub})
	webOnly := startServer(t, &Options{Console: consoleStub, WebOnly: true, Token: token})
	for _, srv := range []struct {
		name string
		s    *testServer
	}{{"token", tokened}, {"no token", open}, {"web only", webOnly}} {
		// A browser session, as the login URL gives one.
		cookie := login(t, srv.s, token)
		port := srv.s.Addr().String()
		port = port[strings.LastIndex(port, ":")+1:]
		for _, tc := range []struct {
			method, path string
		}{
			{"GET", "/v1/sessions"},
			{"POST", web.LoginAPIPath},
			{"GET", "/"},
			{"GET", "/healthz"},
			{"POST", "/mcp"},
		} {
			t.Run(srv.name+" "+tc.method+" "+tc.path, func(t *testing.T) {
				for _, host := range []string{"evil.example:" + port, "evil.example", "10.1.2.3:" + port} {
					code, body := hostRequest(t, tc.method, srv.s.base+tc.path, host, cookie, token)
					if code != http.StatusForbidden || !strings.Contains(body, "DNS rebinding") {
						t.Errorf("Host %s: %d %.200q, want 403 naming DNS rebinding", host, code, body)
					}
				}
				if tc.path == "/mcp" {
					return // its loopback answer is the protocol's, tested elsewhere
				}
				for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "localhost"} {
					if code, body := hostRequest(t, tc.method, srv.s.base+tc.path, host, cookie, token); code == http.StatusForbidden {
						t.Errorf("loopback Host %s: %d %.200q", host, code, body)
					}
				}
			})
		}
	}
}

// login opens a browser session through a login URL and returns its cookie.
func login(t *testing.T, s *testServer, token string) *http.Cookie {
	t.Helper()
	tok, _ := s.opts.Logins.Issue()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(s.base + web.LoginPath + "?t=" + tok)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		return c
	}
	t.Fatalf("login: %s, no cookie", resp.Status)
	return nil
}

func hostRequest(t *testing.T, method, url, host string, cookie *http.Cookie, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(initializeBody))
	req.Host = host
	req.AddCookie(cookie)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if strings.HasSuffix(url, "/mcp") {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
