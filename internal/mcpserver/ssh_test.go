package mcpserver

import (
	"fmt"
	"strings"
	"testing"
)

func TestSSH_PythonREPL(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(e.srv.Addr)
	r := c.start(map[string]any{"host": host, "argv": []string{"python3", "-q"}})
	if r.Output != ">>> " || r.Reason != "awaiting_input" || r.State != "awaiting_input" {
		t.Fatalf("start: output=%q reason=%s state=%s detail=%q", r.Output, r.Reason, r.State, r.StateDetail)
	}
	if !strings.Contains(r.StateDetail, "remote /proc probe") || r.Host != e.srv.User+"@"+e.srv.Addr {
		t.Fatalf("detail=%q host=%q", r.StateDetail, r.Host)
	}
	for i := range 20 {
		var s SendResult
		c.call("send_input", map[string]any{"session_id": r.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &s)
		want := fmt.Sprintf("%d\n>>> ", i*7)
		if s.Output != want || s.Reason != "awaiting_input" {
			t.Fatalf("round trip %d: output=%q reason=%s detail=%q, want %q awaiting_input", i, s.Output, s.Reason, s.StateDetail, want)
		}
	}
	var s SendResult
	c.call("send_input", map[string]any{"session_id": r.SessionID, "keys": []string{"ctrl+d"}}, &s)
	if s.State != "exited" || s.ExitCode == nil || *s.ExitCode != 0 {
		t.Fatalf("ctrl+d: state=%s code=%v output=%q", s.State, s.ExitCode, s.Output)
	}
}
