package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// echoConsole stands in for the console API: it answers 200 "console" to
// anything, so a test sees whether a request got through the auth.
var echoConsole = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "console "+r.URL.Path) })

func newServer(t *testing.T, token string) (*httptest.Server, *Logins) {
	t.Helper()
	l := NewLogins()
	srv := httptest.NewServer(Handler(Options{Console: echoConsole, Logins: l, Token: token, OpenLogin: true}))
	t.Cleanup(srv.Close)
	return srv, l
}

// noRedirect is a client that keeps cookies and shows redirects instead of
// following them.
func noRedirect() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func do(t *testing.T, c *http.Client, method, u string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, u, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func TestHandler_AuthWithoutCookie(t *testing.T) {
	srv, _ := newServer(t, "sekrit")
	cases := []struct {
		name, method, path string
		hdr                map[string]string
		want               int
		body               string
	}{
		{"page", "GET", "/", nil, 401, "agentty web"},
		{"sessions", "GET", "/v1/sessions", nil, 401, `"error":"not logged in`},
		{"stream", "GET", "/v1/sessions/s1/stream", nil, 401, "not logged in"},
		{"kill", "POST", "/v1/sessions/s1/kill", nil, 401, "not logged in"},
		{"wrong bearer", "GET", "/v1/sessions", map[string]string{"Authorization": "Bearer nope"}, 401, "not logged in"},
		{"forged cookie", "GET", "/v1/sessions", map[string]string{"Cookie": "agentty_web_" + port(srv.URL) + "=" + strings.Repeat("ab", 32)}, 401, "not logged in"},
		{"bearer", "GET", "/v1/sessions", map[string]string{"Authorization": "Bearer sekrit"}, 200, "console /v1/sessions"},
		{"assets are public code", "GET", "/assets/app.js", nil, 200, "agentty's live web view"},
		{"vendored xterm", "GET", "/assets/vendor/xterm/xterm.js", nil, 200, "Terminal"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := do(t, http.DefaultClient, tc.method, srv.URL+tc.path, tc.hdr)
			if code != tc.want || !strings.Contains(body, tc.body) {
				t.Errorf("%s %s: %d %q, want %d containing %q", tc.method, tc.path, code, trim(body), tc.want, tc.body)
			}
		})
	}
}

func TestLogin_CookieOpensPageOnce(t *testing.T) {
	srv, l := newServer(t, "")
	tok, _ := l.Issue()
	c := noRedirect()
	code, _, hdr := do(t, c, "GET", srv.URL+LoginPath+"?t="+tok, nil)
	if code != http.StatusSeeOther || hdr.Get("Location") != "/" {
		t.Fatalf("login: %d to %q, want 303 to /", code, hdr.Get("Location"))
	}
	set := hdr.Get("Set-Cookie")
	for _, attr := range []string{"agentty_web_" + port(srv.URL) + "=", "HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"} {
		if !strings.Contains(set, attr) {
			t.Errorf("Set-Cookie %q lacks %q", set, attr)
		}
	}
	if code, body, _ := do(t, c, "GET", srv.URL+"/", nil); code != 200 || !strings.Contains(body, `<script src="/assets/app.js">`) {
		t.Errorf("page with the cookie: %d %q", code, trim(body))
	}
	if code, body, _ := do(t, c, "GET", srv.URL+"/v1/sessions", nil); code != 200 || body != "console /v1/sessions" {
		t.Errorf("console with the cookie: %d %q", code, trim(body))
	}
	t.Run("token used twice", func(t *testing.T) {
		code, body, hdr := do(t, noRedirect(), "GET", srv.URL+LoginPath+"?t="+tok, nil)
		if code != 401 || hdr.Get("Set-Cookie") != "" || !strings.Contains(body, "used already") {
			t.Errorf("second use: %d %q cookie %q", code, trim(body), hdr.Get("Set-Cookie"))
		}
	})
	t.Run("token expired", func(t *testing.T) {
		now := time.Now()
		l.mu.Lock()
		l.now = func() time.Time { return now }
		l.mu.Unlock()
		old, _ := l.Issue()
		l.mu.Lock()
		l.now = func() time.Time { return now.Add(LoginTTL) }
		l.mu.Unlock()
		if code, _, hdr := do(t, noRedirect(), "GET", srv.URL+LoginPath+"?t="+old, nil); code != 401 || hdr.Get("Set-Cookie") != "" {
			t.Errorf("expired token: %d cookie %q", code, hdr.Get("Set-Cookie"))
		}
	})
	t.Run("cookie expired", func(t *testing.T) {
		l.mu.Lock()
		l.now = func() time.Time { return time.Now().Add(CookieTTL) }
		l.mu.Unlock()
		if code, _, _ := do(t, c, "GET", srv.URL+"/v1/sessions", nil); code != 401 {
			t.Errorf("after CookieTTL: %d, want 401", code)
		}
	})
}

func TestLoginAPI_WhoMayAsk(t *testing.T) {
	open, _ := newServer(t, "")
	tokened, _ := newServer(t, "sekrit")
	closed := httptest.NewServer(Handler(Options{Console: echoConsole}))
	t.Cleanup(closed.Close)
	cases := []struct {
		name string
		srv  *httptest.Server
		hdr  map[string]string
		want int
	}{
		{"no token, no browser", open, nil, 200},
		{"no token, a browser", open, map[string]string{"Origin": open.URL}, 403},
		{"no token, logins by the socket only", closed, nil, 401},
		{"token, no bearer", tokened, nil, 401},
		{"token, wrong bearer", tokened, map[string]string{"Authorization": "Bearer nope"}, 401},
		{"token, bearer", tokened, map[string]string{"Authorization": "Bearer sekrit"}, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := do(t, http.DefaultClient, "POST", tc.srv.URL+LoginAPIPath, tc.hdr)
			if code != tc.want {
				t.Fatalf("%d %q, want %d", code, trim(body), tc.want)
			}
			if code != 200 {
				return
			}
			var r LoginReply
			if err := json.Unmarshal([]byte(body), &r); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(r.URL, tc.srv.URL+LoginPath+"?t=") || len(r.URL)-len(tc.srv.URL+LoginPath+"?t=") != 64 ||
				!strings.HasSuffix(r.URL, r.Path) || time.Until(r.Expires) > LoginTTL {
				t.Fatalf("reply %+v", r)
			}
			c := noRedirect()
			if code, _, _ := do(t, c, "GET", r.URL, nil); code != http.StatusSeeOther {
				t.Fatalf("opening the URL: %d", code)
			}
			if code, _, _ := do(t, c, "GET", tc.srv.URL+"/v1/sessions", nil); code != 200 {
				t.Fatalf("console after login: %d", code)
			}
		})
	}
}

func TestLogins_Bounded(t *testing.T) {
	l := NewLogins()
	first, _ := l.Issue()
	for range maxPending {
		l.Issue()
	}
	if len(l.pending) != maxPending {
		t.Fatalf("%d pending, want the cap %d", len(l.pending), maxPending)
	}
	if _, ok := l.Redeem(first); ok {
		t.Fatal("the oldest token survived the cap")
	}
}

func port(u string) string {
	p, _ := url.Parse(u)
	return p.Port()
}

func trim(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// TestLogins_HandlerForTrustedFrontEnds: the daemon socket's login route
// names the page's front end, and says so while none serves it.
func TestLogins_HandlerForTrustedFrontEnds(t *testing.T) {
	l := NewLogins()
	rec := httptest.NewRecorder()
	l.Handler().ServeHTTP(rec, httptest.NewRequest("POST", LoginAPIPath, nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "run agentty web") {
		t.Fatalf("before Serving: %d %s", rec.Code, rec.Body)
	}
	l.Serving("http://127.0.0.1:4242")
	rec = httptest.NewRecorder()
	l.Handler().ServeHTTP(rec, httptest.NewRequest("POST", LoginAPIPath, nil))
	var r LoginReply
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil || rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	tok, ok := strings.CutPrefix(r.URL, "http://127.0.0.1:4242"+LoginPath+"?t=")
	if !ok {
		t.Fatalf("URL %q", r.URL)
	}
	if _, ok := l.Redeem(tok); !ok {
		t.Fatal("the token it handed out does not redeem")
	}
}
