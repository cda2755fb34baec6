package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// installer asks a directory, a password (echo off) and a confirmation.
const installer = `read -p "Install dir? " d; read -s -p "Admin password: " pw; echo; read -p "Proceed? " ok; ` +
	`printf 'installed to %s (%s) pwhash=%s\n' "$d" "$ok" "$(printf %s "$pw" | sha256sum | cut -d' ' -f1)"`

// TestPerson_AgentEconomy counts what the model handles for an installer
// with three prompts, one a password: one interactive run_command against
// start_process plus three send_input calls (the password typed by the
// person through secret=ask_user). It asserts the call counts and the
// outcome, and logs the bytes of every result (text and structured
// content, what a client may hand the model) for docs/person.md:
//
//	go test -count=1 -v -run TestPerson_AgentEconomy ./internal/mcpserver
func TestPerson_AgentEconomy(t *testing.T) {
	pw := newSecret()
	want := "installed to /opt/x (yes) pwhash=" + sha(pw)
	argv := []string{"bash", "--norc", "-c", installer}
	measure := func(res *mcp.CallToolResult) (text, all int) {
		b, _ := json.Marshal(res)
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += len(tc.Text)
			}
		}
		return text, len(b)
	}

	p := &person{secret: pw, answers: map[string]string{"Install dir?": "/opt/x", "Proceed?": "yes"}}
	h := newPersonHarness(t, "", p.options(), Options{})
	var r RunResult
	text1, all1 := measure(h.run("run_command", map[string]any{"argv": argv, "interactive": true}, &r))
	if !strings.Contains(r.Stdout.Text, want) || r.Rounds == nil || *r.Rounds != 3 {
		t.Fatalf("interactive: %+v", r)
	}

	p2 := &person{secret: pw}
	h2 := newPersonHarness(t, "", p2.options(), Options{})
	var calls, text2, all2 int
	step := func(name string, args map[string]any, out any) {
		t.Helper()
		a, b := measure(h2.run(name, args, out))
		calls, text2, all2 = calls+1, text2+a, all2+b
	}
	var st StartResult
	step("start_process", map[string]any{"argv": argv}, &st)
	var s1, s2, s3 SendResult
	step("send_input", map[string]any{"session_id": st.SessionID, "text": "/opt/x", "enter": true}, &s1)
	step("send_input", map[string]any{"session_id": st.SessionID, "secret": "ask_user"}, &s2)
	step("send_input", map[string]any{"session_id": st.SessionID, "text": "yes", "enter": true, "return_on": []string{"exit"}}, &s3)
	if st.State != "awaiting_input" || s1.State != "awaiting_password" || s2.Secret != "answered" || !strings.Contains(s3.Output, want) {
		t.Fatalf("stepwise: %s / %s / %s / %q", st.State, s1.State, s2.Secret, s3.Output)
	}
	t.Logf("interactive run_command: 1 call, %d text bytes, %d result bytes; the person answered 3 questions", text1, all1)
	t.Logf("start_process + 3 send_input: %d calls, %d text bytes, %d result bytes; the person answered 1 question (the password)", calls, text2, all2)
	h.noLeak(t, pw)
	h2.noLeak(t, pw)
}
