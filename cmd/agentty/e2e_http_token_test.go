package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var bannerRE = regexp.MustCompile(`(?m)^    Authorization: Bearer ([0-9a-f]{64})$`)

// bannerToken is the generated token the server printed at start as the
// header clients send.
func (s *httpServer) bannerToken() string {
	s.t.Helper()
	m := bannerRE.FindStringSubmatch(readFile(s.t, s.stderr))
	if m == nil {
		s.t.Fatalf("the server printed no 'Authorization: Bearer' line:\n%s", readFile(s.t, s.stderr))
	}
	return m[1]
}

// TestServeHTTP_TokenByDefault: serve -http without a token flag generates
// one (0600, in the state directory), prints it once as the header and a
// web login URL, refuses MCP and the console without it, and keeps it
// across restarts; a token file others can read is refused with how to
// fix it; -insecure-no-token serves without one and says so.
func TestServeHTTP_TokenByDefault(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	env := []string{tokenEnv + "=", "XDG_STATE_HOME=" + state}
	tokenPath := filepath.Join(state, "agentty", httpTokenName)

	s := startHTTPServer(t, env)
	token := s.bannerToken()
	base := strings.TrimSuffix(s.url, "/mcp")
	t.Run("kept 0600 in the state directory", func(t *testing.T) {
		st, err := os.Stat(tokenPath)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(tokenPath)
		if st.Mode().Perm() != 0o600 || strings.TrimSpace(string(b)) != token {
			t.Fatalf("%s: mode %04o content %q, want 0600 holding the printed token %s", tokenPath, st.Mode().Perm(), b, token)
		}
		log := readFile(t, s.stderr)
		if n := strings.Count(log, token); n != 2 {
			t.Fatalf("the token appears %d times in the server's output, want 2 (header and login URL):\n%s", n, log)
		}
		// As docs/http.md shows it.
		banner := "agentty serve: MCP at " + base + "/mcp; clients send the header (token kept in " + tokenPath + ")\n" +
			"    Authorization: Bearer " + token + "\n" +
			"agentty serve: web view: " + base + "/login?t=" + token + "\n"
		if !strings.Contains(log, banner) {
			t.Fatalf("no banner\n%s\nin:\n%s", banner, log)
		}
		if m := regexp.MustCompile(`(?m)name no setting are ignored.*$`).FindString(log); strings.Contains(m, tokenEnv) {
			t.Fatalf("$%s, which serve -http reads, is called ignored: %s", tokenEnv, m)
		}
	})
	t.Run("MCP refused without the token", func(t *testing.T) {
		_, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: s.url, MaxRetries: -1}, nil)
		if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Fatalf("connect without the token: %v, want 401 Unauthorized", err)
		}
		cs := s.connect(token)
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatalf("with the printed token: %v", err)
		}
	})
	t.Run("console and login URL", func(t *testing.T) {
		jar, _ := cookiejar.New(nil)
		browser := &http.Client{Jar: jar}
		for _, tc := range []struct {
			path string
			want int
			body string
		}{
			{"/v1/sessions", 401, "not logged in"},
			{"/login?t=wrong", 401, "unknown"},
			{"/login?t=" + token, 200, "<title>agentty</title>"}, // redirected to the page, with the cookie
			{"/v1/sessions", 200, "["},
		} {
			code, body := get(t, browser, base+tc.path)
			if code != tc.want || !strings.Contains(body, tc.body) {
				t.Errorf("GET %s: %d %.200q, want %d containing %q", tc.path, code, body, tc.want, tc.body)
			}
		}
	})
	t.Run("the same token after a restart", func(t *testing.T) {
		again := startHTTPServer(t, env)
		if got := again.bannerToken(); got != token {
			t.Fatalf("restarted server printed token %s, want the kept %s", got, token)
		}
	})
	t.Run("a token file others can read is refused", func(t *testing.T) {
		if err := os.Chmod(tokenPath, 0o640); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(tokenPath, 0o600)
		cmd := selfCommand(t, "serve", "-http", "127.0.0.1:0")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "chmod 600 "+tokenPath) ||
			!strings.Contains(string(out), "is readable by other users (mode 0640)") {
			t.Fatalf("exit %v, want 2 saying to chmod 600 %s:\n%s", err, tokenPath, out)
		}
	})
	t.Run("-insecure-no-token", func(t *testing.T) {
		open := startHTTPServer(t, env, "-"+insecureNoTokenFlag)
		log := readFile(t, open.stderr)
		if !strings.Contains(log, "WITHOUT a token") || strings.Contains(log, token) {
			t.Fatalf("no warning, or the token shown:\n%s", log)
		}
		if _, err := open.connect("").ListTools(context.Background(), nil); err != nil {
			t.Fatalf("without a token: %v", err)
		}
	})
}
