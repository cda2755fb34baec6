package main

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/console/api"
)

// runWeb runs "agentty web" with args against h's daemon, with extra
// environment env, and returns its exit code, stdout and stderr.
func runWeb(t *testing.T, h *daemonHome, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := h.command(t, append([]string{"web"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// liveSession logs a fresh browser in with login and returns the session
// id as GET /v1/sessions shows it, with the web view's host:port.
func liveSession(t *testing.T, login, id string) (api.Session, string) {
	t.Helper()
	u, err := url.Parse(login)
	if err != nil || u.Scheme != "http" || !strings.HasPrefix(u.Host, "127.0.0.1:") || u.Path != "/login" || len(u.Query().Get("t")) != 64 {
		t.Fatalf("login URL %q: want http://127.0.0.1:PORT/login?t=<64 hex digits> (%v)", login, err)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if code, page := get(t, browser, login); code != http.StatusOK || !strings.Contains(page, "/assets/app.js") {
		t.Fatalf("login URL: %d\n%.300s", code, page)
	}
	code, body := get(t, browser, "http://"+u.Host+"/v1/sessions")
	if code != http.StatusOK {
		t.Fatalf("GET /v1/sessions after login: %d %s", code, body)
	}
	var list []api.Session
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatalf("GET /v1/sessions: %v\n%s", err, body)
	}
	for _, s := range list {
		if s.ID == id {
			return s, u.Host
		}
	}
	t.Fatalf("GET /v1/sessions lists no %s: %s", id, body)
	return api.Session{}, ""
}

// fakeOpener puts a browser opener named name in a new directory that
// appends its argument to a file; it returns the directory and the file.
func fakeOpener(t *testing.T, name, exit string) (dir, record string) {
	t.Helper()
	dir = t.TempDir()
	record = filepath.Join(dir, "opened")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + record + "'\nexit " + exit + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, record
}

// TestWeb_DaemonOpensItsView: "agentty web" against a daemon started
// without -web (by serve, as every MCP client starts it) makes the daemon
// open its web view on loopback and shows the client's session live; a
// second call reuses the same listener; the browser is opened through the
// system's opener, and the URL printed when there is none or -no-open.
func TestWeb_DaemonOpensItsView(t *testing.T) {
	t.Parallel()
	h := newDaemonHome(t)
	s := h.serve(t, nil)
	id := startPython(t, s)
	noOpener := "PATH=" + t.TempDir()

	code, out, errOut := runWeb(t, h, nil, "-no-open")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(errOut, "it works once") {
		t.Fatalf("agentty web -no-open: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	sess, host := liveSession(t, strings.TrimSpace(out), id)
	if !sess.Live || sess.State != "awaiting_input" || sess.Command != "python3 -q" {
		t.Fatalf("the client's session in the web view: %+v, want live, awaiting_input, python3 -q", sess)
	}

	t.Run("second call reuses the listener", func(t *testing.T) {
		code, out, errOut := runWeb(t, h, nil, "-no-open")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if _, again := liveSession(t, strings.TrimSpace(out), id); again != host {
			t.Fatalf("second agentty web served on %s, the first on %s", again, host)
		}
	})
	t.Run("opener", func(t *testing.T) {
		dir, record := fakeOpener(t, "xdg-open", "0")
		code, out, errOut := runWeb(t, h, []string{"PATH=" + dir})
		if code != 0 || out != "" || !strings.Contains(errOut, "opened the web view in your browser (xdg-open)") {
			t.Fatalf("agentty web with an opener: exit %d\nstdout %q\nstderr %q", code, out, errOut)
		}
		b, err := os.ReadFile(record)
		if err != nil {
			t.Fatalf("the opener was not run: %v", err)
		}
		if strings.Count(string(b), "\n") != 1 {
			t.Fatalf("the opener got %q, want one URL", b)
		}
		if sess, again := liveSession(t, strings.TrimSpace(string(b)), id); again != host || !sess.Live {
			t.Fatalf("the opened URL shows %+v on %s, want live on %s", sess, again, host)
		}
	})
	t.Run("opener fails", func(t *testing.T) {
		dir, record := fakeOpener(t, "xdg-open", "3")
		code, out, errOut := runWeb(t, h, []string{"PATH=" + dir})
		if code != 0 || !strings.Contains(errOut, "xdg-open failed (exit status 3): open the URL below yourself") {
			t.Fatalf("exit %d\nstderr %q", code, errOut)
		}
		if _, err := os.Stat(record); err != nil {
			t.Fatalf("the opener was not run: %v", err)
		}
		liveSession(t, strings.TrimSpace(out), id)
	})
	t.Run("no opener", func(t *testing.T) {
		code, out, errOut := runWeb(t, h, []string{noOpener})
		if code != 0 || !strings.Contains(errOut, "no browser opener (xdg-open) found") {
			t.Fatalf("exit %d\nstderr %q", code, errOut)
		}
		liveSession(t, strings.TrimSpace(out), id)
	})
	t.Run("-no-open runs no opener", func(t *testing.T) {
		dir, record := fakeOpener(t, "xdg-open", "0")
		code, out, _ := runWeb(t, h, []string{"PATH=" + dir}, "-no-open")
		if code != 0 || strings.Count(out, "\n") != 1 {
			t.Fatalf("exit %d, stdout %q", code, out)
		}
		if _, err := os.Stat(record); !os.IsNotExist(err) {
			t.Fatalf("-no-open ran the opener (%v)", err)
		}
	})
	t.Run("beyond loopback refused", func(t *testing.T) {
		code, out, errOut := runWeb(t, h, nil, "-no-open", "-addr", "0.0.0.0:0")
		if code != 1 || out != "" || !strings.Contains(errOut, "the web view opens on a loopback address only") {
			t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
		}
	})
	t.Run("no daemon", func(t *testing.T) {
		gone := filepath.Join(t.TempDir(), "agentty.sock")
		code, out, errOut := runWeb(t, h, []string{"AGENTTY_SOCKET=" + gone}, "-no-open")
		if code != 1 || out != "" || !strings.HasPrefix(errOut, "agentty web: no agentty daemon runs: ") || !strings.Contains(errOut, gone) {
			t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
		}
	})
}
