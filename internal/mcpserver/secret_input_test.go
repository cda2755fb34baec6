package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newSecret is a secret no file or log could hold by chance.
func newSecret() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "T0p-s3cret-" + hex.EncodeToString(b)
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// checkSecret reads the password with echo off and prints only its hash.
const checkSecret = `read -s -p "Password: " pw; echo; printf 'pwhash=%s\n' "$(printf %s "$pw" | sha256sum | cut -d' ' -f1)"`

// TestSendInput_SecretAskUser: at a read -s prompt, send_input
// secret=ask_user has the person type the secret on the one-time page the
// client opens (URL elicitation); the program gets it, and it appears in
// no result, log, audit record or transcript file.
func TestSendInput_SecretAskUser(t *testing.T) {
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			pw := newSecret()
			p := &person{secret: pw}
			h := newPersonHarness(t, version, p.options(), Options{})
			var st StartResult
			h.run("start_process", map[string]any{"argv": []string{"bash", "--norc", "-c", checkSecret}}, &st)
			if st.State != "awaiting_password" {
				t.Fatalf("start: %+v", st)
			}
			if msg := h.toolError("send_input", map[string]any{"session_id": st.SessionID, "secret": "ask_user", "text": "x"}); !strings.Contains(msg, "give no text") {
				t.Fatal(msg)
			}
			var r SendResult
			h.run("send_input", map[string]any{"session_id": st.SessionID, "secret": "ask_user", "return_on": []string{"exit"}}, &r)
			if r.Secret != "answered" || !strings.Contains(r.Output, "pwhash="+sha(pw)) || r.State != "exited" {
				t.Fatalf("send: %+v (page errors %v)", r, p.pageErrs)
			}
			if len(p.urls) != 1 {
				t.Fatalf("urls %v", p.urls)
			}
			// The page is spent.
			if res, err := http.Get(p.urls[0]); err != nil || res.StatusCode != http.StatusGone {
				t.Fatalf("reused page: %v %v", res, err)
			} else {
				res.Body.Close()
			}
			if msg := h.toolError("send_input", map[string]any{"session_id": st.SessionID, "secret": "ask_user"}); !strings.Contains(msg, "not at a password prompt") {
				t.Fatal(msg)
			}
			var events int
			for _, e := range auditEvents(t, h) {
				if e.Event == "input" && e.Redacted && e.Input == "[redacted 27 bytes] [enter]" {
					events++
				}
			}
			if events != 1 {
				t.Fatalf("redacted input events: %d", events)
			}
			h.noLeak(t, pw)
		})
	}
	t.Run("declined", func(t *testing.T) {
		p := &person{secret: ""} // declines on the page
		h := newPersonHarness(t, "", p.options(), Options{})
		var st StartResult
		h.run("start_process", map[string]any{"argv": []string{"bash", "--norc", "-c", checkSecret}}, &st)
		var r SendResult
		h.run("send_input", map[string]any{"session_id": st.SessionID, "secret": "ask_user", "timeout_ms": 0}, &r)
		if r.Secret != "declined" || r.State != "awaiting_password" || !strings.Contains(r.Hint, "nothing was typed") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("client without elicitation gets the URL", func(t *testing.T) {
		pw := newSecret()
		h := newPersonHarness(t, "", nil, Options{})
		var st StartResult
		h.run("start_process", map[string]any{"argv": []string{"bash", "--norc", "-c", checkSecret}}, &st)
		var r SendResult
		h.run("send_input", map[string]any{"session_id": st.SessionID, "secret": "ask_user", "timeout_ms": 0}, &r)
		if r.Secret != "url_given" || !strings.HasPrefix(r.SecretURL, "http://127.0.0.1:") || !strings.Contains(r.Hint, "give them this URL") {
			t.Fatalf("%+v", r)
		}
		// Nothing was typed yet: the reply is a read that did not wait,
		// with the reader's true position ("Password: " was read at start).
		if st.Cursor != int64(len("Password: ")) || r.Cursor != st.Cursor || r.Line != 0 || r.Reason != "no_wait" ||
			r.State != "awaiting_password" || r.Output != "" || r.ReaderID != 0 {
			t.Fatalf("url_given reply %+v after start %+v: want cursor %d, line 0, reason no_wait, awaiting_password", r, st, len("Password: "))
		}
		if err := typeOnPage(r.SecretURL, "Password:", pw); err != nil {
			t.Fatal(err)
		}
		var rd ReadResult
		h.run("read_output", map[string]any{"session_id": st.SessionID, "return_on": []string{"exit"}}, &rd)
		if !strings.Contains(rd.Output, "pwhash="+sha(pw)) {
			t.Fatalf("%+v", rd)
		}
		if got := h.inputs(st.SessionID); got != "person:[redacted]" {
			t.Fatalf("transcript inputs %q", got)
		}
		h.noLeak(t, pw)
	})
	t.Run("form-only client shows the link", func(t *testing.T) {
		pw := newSecret()
		var pageErr error
		co := &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			i := strings.Index(req.Params.Message, "http://127.0.0.1:")
			if req.Params.Mode == "url" || i < 0 {
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			link := strings.Fields(req.Params.Message[i:])[0]
			pageErr = typeOnPage(link, "asks for a secret", pw)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		}}
		h := newPersonHarness(t, "2025-06-18", co, Options{})
		var st StartResult
		h.run("start_process", map[string]any{"argv": []string{"bash", "--norc", "-c", checkSecret}}, &st)
		var r SendResult
		h.run("send_input", map[string]any{"session_id": st.SessionID, "secret": "ask_user", "return_on": []string{"exit"}}, &r)
		if pageErr != nil || r.Secret != "answered" || !strings.Contains(r.Output, "pwhash="+sha(pw)) {
			t.Fatalf("%+v %v", r, pageErr)
		}
	})
}

// TestRunCommand_InteractiveSecret: an installer asking a directory, a
// password and a confirmation runs in one call; the password prompt is
// never a form but the one-time page.
func TestRunCommand_InteractiveSecret(t *testing.T) {
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			pw := newSecret()
			p := &person{secret: pw, answers: map[string]string{"Install dir?": "/opt/x", "Proceed?": "yes"}}
			h := newPersonHarness(t, version, p.options(), Options{})
			start := time.Now()
			var r RunResult
			h.run("run_command", map[string]any{"argv": []string{"bash", "--norc", "-c", installer}, "interactive": true}, &r)
			if r.ExitCode == nil || *r.ExitCode != 0 || r.Rounds == nil || *r.Rounds != 3 || !r.OK {
				t.Fatalf("%+v (page errors %v)", r, p.pageErrs)
			}
			if !strings.Contains(r.Stdout.Text, "installed to /opt/x (yes) pwhash="+sha(pw)) {
				t.Fatalf("output %q", r.Stdout.Text)
			}
			if len(p.asked) != 2 || len(p.urls) != 1 {
				t.Fatalf("forms %d urls %d", len(p.asked), len(p.urls))
			}
			for _, q := range p.asked {
				if strings.Contains(q, "Admin password") && !strings.Contains(q, "Proceed?") {
					t.Fatalf("the password prompt was a form: %q", q)
				}
			}
			t.Logf("one call, %v", time.Since(start))
			// The answers are the person's, though they came through the
			// client's forms and the page.
			if got := h.inputs(r.SessionID); got != "person:/opt/x\r person:[redacted] person:yes\r" {
				t.Fatalf("transcript inputs %q", got)
			}
			h.noLeak(t, pw)
		})
	}
}

// TestRunCommand_InteractiveSSHPassword: ssh asking for a password on
// its terminal (a local PTY) logs in to the test sshd with the password
// the person typed on the page; the password is nowhere afterwards.
func TestRunCommand_InteractiveSSHPassword(t *testing.T) {
	e := newSSHEnv(t)
	p := &person{secret: e.srv.Password}
	h := newPersonHarness(t, "", p.options(), Options{})
	var r RunResult
	h.run("run_command", map[string]any{"argv": []string{"ssh", "-n", "-p", strconv.Itoa(e.srv.Port), "-o", "UserKnownHostsFile=" + e.knownHosts,
		"-o", "StrictHostKeyChecking=yes", "-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password,keyboard-interactive",
		"-o", "IdentityAgent=none", "-F", "/dev/null", e.srv.User + "@127.0.0.1", "echo", "ssh-login-ok"}, "interactive": true}, &r)
	if r.ExitCode == nil || *r.ExitCode != 0 || r.Rounds == nil || *r.Rounds != 1 || !strings.Contains(r.Stdout.Text, "ssh-login-ok") {
		t.Fatalf("%+v (page errors %v)", r, p.pageErrs)
	}
	if len(p.urls) != 1 || len(p.asked) != 0 {
		t.Fatalf("urls %d forms %d", len(p.urls), len(p.asked))
	}
	h.noLeak(t, e.srv.Password)
}

// inputs lists a session's transcript input records as from:content
// ("[redacted]" for a redacted one), in order.
func (h *personHarness) inputs(sid string) string {
	h.t.Helper()
	var msgs ListMessagesResult
	h.call("list_messages", map[string]any{"session_id": sid, "types": []string{"input"}}, &msgs)
	var out []string
	for _, m := range msgs.Messages {
		c := m.Content
		if m.Redacted {
			c = "[redacted]"
		}
		out = append(out, m.From+":"+c)
	}
	return strings.Join(out, " ")
}
