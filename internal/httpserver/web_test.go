package httpserver

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/web"
)

// consoleStub answers every console route, so a test sees what got
// through the front end's checks.
var consoleStub = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "console") })

func request(t *testing.T, method, url string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestWebView_Mounted: the page and the console API sit beside MCP, behind
// the Origin check and the cookie or token; a WebOnly listener (the
// daemon's -web) has no MCP and hands out login URLs only for the token.
func TestWebView_Mounted(t *testing.T) {
	open := startServer(t, &Options{Console: consoleStub})
	tokened := startServer(t, &Options{Console: consoleStub, Token: "tok"})
	webOnly := startServer(t, &Options{Console: consoleStub, WebOnly: true})
	ws := []string{"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="}
	cases := []struct {
		name, method string
		srv          *testServer
		path         string
		hdr          []string
		want         int
		body         string
	}{
		{"page needs the cookie", "GET", open, "/", nil, 401, "agentty web"},
		{"console needs the cookie", "GET", open, "/v1/sessions", nil, 401, "not logged in"},
		{"console with the token", "GET", tokened, "/v1/sessions", []string{"Authorization", "Bearer tok"}, 200, "console"},
		{"foreign Origin on the stream", "GET", tokened, "/v1/sessions/s1/stream",
			append([]string{"Origin", "http://evil.example", "Authorization", "Bearer tok"}, ws...), 403, "evil.example"},
		{"loopback Origin on the stream", "GET", tokened, "/v1/sessions/s1/stream",
			append([]string{"Origin", "http://127.0.0.1", "Authorization", "Bearer tok"}, ws...), 200, "console"},
		{"login URL on a loopback server", "POST", open, web.LoginAPIPath, nil, 200, "/login?t="},
		{"login URL needs the token", "POST", tokened, web.LoginAPIPath, nil, 401, "Bearer"},
		{"web only: no MCP", "POST", webOnly, "/mcp", nil, 404, ""},
		{"web only: login URLs from the socket", "POST", webOnly, web.LoginAPIPath, nil, 401, "socket"},
		{"web only: health", "GET", webOnly, "/healthz", nil, 200, "ok"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := request(t, tc.method, tc.srv.base+tc.path, tc.hdr...)
			if code != tc.want || !strings.Contains(body, tc.body) {
				t.Errorf("%s %s: %d %.200q, want %d containing %q", tc.method, tc.path, code, body, tc.want, tc.body)
			}
		})
	}
	t.Run("login URL names this server", func(t *testing.T) {
		_, body := request(t, "POST", open.base+web.LoginAPIPath)
		if !strings.Contains(body, `"url":"`+open.base+"/login?t=") {
			t.Errorf("reply %s does not name %s", body, open.base)
		}
	})
}
