package mcpserver

import (
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// TestPasswordPrompt_LeadsToAskUser: every reply that reports
// awaiting_password (start_process, send_input, read_output, read_screen,
// exec_command) names the call that has the user type the secret, with
// the session's id, and tells the agent not to type it.
func TestPasswordPrompt_LeadsToAskUser(t *testing.T) {
	c := newClient(t, session.Config{})
	hint := func(id string) string {
		return `hint: the program asks for a secret (echo is off): send_input {"session_id": "` + id +
			`", "secret": "ask_user"} has the user type it on a private page; never type a password yourself`
	}
	prompt := []string{"bash", "--norc", "-c", `read -p "name? " n; read -s -p "Password: " p; echo "len ${#p}"`}
	t.Run("process", func(t *testing.T) {
		var st StartResult
		res := c.on(t).call("start_process", map[string]any{"argv": prompt}, &st)
		if st.State != "awaiting_input" || strings.Contains(text(res), "hint:") {
			t.Fatalf("name prompt: %+v", st)
		}
		var r SendResult
		res = c.on(t).call("send_input", map[string]any{"session_id": st.SessionID, "text": "ann", "enter": true}, &r)
		if r.State != "awaiting_password" || !strings.HasSuffix(text(res), "]\n"+hint(st.SessionID)) || "hint: "+r.Hint != hint(st.SessionID) {
			t.Fatalf("send_input: %q", text(res))
		}
		var rr ReadResult
		res = c.on(t).call("read_output", map[string]any{"session_id": st.SessionID, "timeout_ms": 0}, &rr)
		if rr.State != "awaiting_password" || !strings.HasSuffix(text(res), "]\n"+hint(st.SessionID)) {
			t.Fatalf("read_output: %q", text(res))
		}
		var sr ScreenResult
		res = c.on(t).call("read_screen", map[string]any{"session_id": st.SessionID, "timeout_ms": 0}, &sr)
		if sr.State != "awaiting_password" || !strings.HasSuffix(text(res), "]\n"+hint(st.SessionID)) {
			t.Fatalf("read_screen: %q", text(res))
		}
	})
	t.Run("shell", func(t *testing.T) {
		sh := c.on(t).openShell(map[string]any{})
		r := c.on(t).exec(sh.SessionID, `read -s -p "Password: " p; echo "len ${#p}"`, map[string]any{"timeout_ms": 10000})
		if r.State != "awaiting_password" || "hint: "+r.Hint != hint(sh.SessionID)+"; then await_command for the rest" {
			t.Fatalf("exec_command: %+v", r)
		}
	})
}
