package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/toolcall"
)

// sudoUser is a temporary unprivileged user who may run /usr/bin/id as
// root with their password; Cleanup removes them and the sudoers entry.
func sudoUser(t *testing.T) (name, password string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates a temporary user and a sudoers entry")
	}
	for _, tool := range []string{"sudo", "su", "useradd", "userdel", "chpasswd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s missing (as root, scripts/test installs sudo)", tool)
		}
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name = "agentty-sudo-" + hex.EncodeToString(b)
	_, _ = rand.Read(b)
	password = "Sud0-pw-" + hex.EncodeToString(b) + hex.EncodeToString(b[:2])
	if out, err := exec.Command("useradd", "-M", "-s", "/bin/sh", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("userdel", "-f", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v: %s", name, err, out)
		}
	})
	cmd := exec.Command("chpasswd")
	cmd.Stdin = strings.NewReader(name + ":" + password + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chpasswd: %v: %s", err, out)
	}
	sudoers := filepath.Join("/etc/sudoers.d", strings.ReplaceAll(name, "-", "_"))
	if err := os.WriteFile(sudoers, []byte(name+" ALL=(root) /usr/bin/id\n"), 0o440); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(sudoers) })
	return name, password
}

// publicCopy copies this test binary where any user may run it: the
// askpass script runs it as the user sudo runs as.
func publicCopy(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "agentty-e2e-exe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "agentty")
	if err := errors.Join(os.Chmod(dir, 0o755), os.WriteFile(dst, b, 0o755)); err != nil {
		t.Fatal(err)
	}
	return dst
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// personAt answers URL questions by typing password on the page, like a
// person in a browser would, and counts them.
type personAt struct {
	password string
	mu       sync.Mutex
	urls     int
	err      error
}

func (p *personAt) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			p.mu.Lock()
			defer p.mu.Unlock()
			if req.Params.Mode != "url" {
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			p.urls++
			if p.err = p.typeOn(req.Params.URL); p.err != nil {
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		}}
}

func (p *personAt) typeOn(page string) error {
	res, err := http.Get(page)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfInput.FindSubmatch(body)
	if m == nil || !bytes.Contains(body, []byte("[sudo] password for")) {
		return &pageErr{string(body)}
	}
	res, err = http.PostForm(page, url.Values{"csrf": {string(m[1])}, "secret": {p.password}, "action": {"send"}})
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return &pageErr{res.Status}
	}
	return nil
}

type pageErr struct{ s string }

func (e *pageErr) Error() string { return "secret page: " + e.s }

// TestAskpass_SudoA: sudo -A in a session asks for the password through
// SUDO_ASKPASS = agentty askpass; the person types it on the one-time
// page; sudo runs the command. Through an interactive run (both protocol
// generations; the question is a round) and through send_input
// secret=ask_user (a 2026-07-28 client, which cannot be asked outside a
// call). The password is then in no result, log, audit record or
// transcript file.
func TestAskpass_SudoA(t *testing.T) {
	user, pw := sudoUser(t)
	exe := publicCopy(t)
	sudo := []string{"su", user, "-c", "sudo -A -k /usr/bin/id -u"}
	type run struct {
		s       *server
		p       *personAt
		dir     string
		results []string
	}
	start := func(t *testing.T, version string) *run {
		r := &run{p: &personAt{password: pw}, dir: t.TempDir()}
		r.s = startServerClient(t, func(c *exec.Cmd) { c.Path, c.Args[0] = exe, exe }, r.p.options(), &mcp.ClientSessionOptions{ProtocolVersion: version},
			"-log-level", "debug", "-data-dir", filepath.Join(r.dir, "data"), "-audit-log", filepath.Join(r.dir, "audit"))
		return r
	}
	call := func(t *testing.T, r *run, name string, args map[string]any, out any) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		res, err := toolcall.Call(ctx, r.s.cs, name, args, out)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := json.Marshal(res)
		r.results = append(r.results, string(b))
		if res.IsError {
			t.Fatalf("%s: %s", name, toolcall.Text(res))
		}
	}
	noLeak := func(t *testing.T, r *run) {
		t.Helper()
		r.s.close()
		for _, res := range r.results {
			if strings.Contains(res, pw) {
				t.Fatalf("password in a result: %s", res)
			}
		}
		if strings.Contains(readFile(t, r.s.stderr), pw) {
			t.Fatal("password in the server log")
		}
		n := 0
		_ = filepath.Walk(r.dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				n++
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(pw)) {
					t.Errorf("password in %s", p)
				}
			}
			return nil
		})
		if n < 3 {
			t.Fatalf("only %d files checked", n)
		}
	}
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("interactive/"+version, func(t *testing.T) {
			r := start(t, version)
			var out struct {
				ExitCode *int   `json:"exit_code"`
				Rounds   *int   `json:"rounds"`
				Note     string `json:"note"`
				Stdout   struct {
					Text string `json:"text"`
				} `json:"stdout"`
			}
			call(t, r, "run_command", map[string]any{"argv": sudo, "cwd": "/", "interactive": true}, &out)
			if out.ExitCode == nil || *out.ExitCode != 0 || out.Rounds == nil || *out.Rounds != 1 || !regexp.MustCompile(`(?m)^0\r?$`).MatchString(out.Stdout.Text) {
				t.Fatalf("%+v %q (person: %d urls, %v)", out, out.Stdout.Text, r.p.urls, r.p.err)
			}
			noLeak(t, r)
		})
	}
	t.Run("asked out of band/2025-06-18", func(t *testing.T) {
		// An older client with URL elicitation is asked at once, while the
		// agent merely waits for the program to end.
		r := start(t, "2025-06-18")
		var st struct {
			SessionID string `json:"session_id"`
		}
		call(t, r, "start_process", map[string]any{"argv": sudo, "cwd": "/", "timeout_ms": 0}, &st)
		var rd struct {
			Output   string `json:"output"`
			ExitCode *int   `json:"exit_code"`
		}
		call(t, r, "read_output", map[string]any{"session_id": st.SessionID, "return_on": []string{"exit"}, "timeout_ms": 30000}, &rd)
		if rd.ExitCode == nil || *rd.ExitCode != 0 || !regexp.MustCompile(`(?m)^0\r?$`).MatchString(rd.Output) || r.p.urls != 1 {
			t.Fatalf("%+v (person: %d urls, %v)", rd, r.p.urls, r.p.err)
		}
		noLeak(t, r)
	})
	t.Run("send_input secret=ask_user", func(t *testing.T) {
		r := start(t, "")
		var st struct {
			SessionID string `json:"session_id"`
		}
		call(t, r, "start_process", map[string]any{"argv": sudo, "cwd": "/", "timeout_ms": 0}, &st)
		// The question arrives when sudo runs askpass: one read waits for
		// it and says so.
		var rd struct {
			Reason string `json:"reason"`
			State  string `json:"state"`
			Hint   string `json:"hint"`
		}
		call(t, r, "read_output", map[string]any{"session_id": st.SessionID, "timeout_ms": 30000}, &rd)
		if rd.Reason != "awaiting_input" || rd.State != "awaiting_password" || !strings.Contains(rd.Hint, "secret=ask_user") {
			t.Fatalf("read_output while sudo asks through askpass: %+v", rd)
		}
		var sent struct {
			Secret   string `json:"secret"`
			Output   string `json:"output"`
			ExitCode *int   `json:"exit_code"`
		}
		call(t, r, "send_input", map[string]any{"session_id": st.SessionID, "secret": "ask_user", "return_on": []string{"exit"}}, &sent)
		if sent.Secret != "answered" || sent.ExitCode == nil || *sent.ExitCode != 0 || !regexp.MustCompile(`(?m)^0\r?$`).MatchString(sent.Output) {
			t.Fatalf("%+v (person: %d urls, %v)", sent, r.p.urls, r.p.err)
		}
		noLeak(t, r)
	})
}
