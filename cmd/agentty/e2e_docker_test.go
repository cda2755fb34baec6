package main

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/session"
)

// The same tools with host docker://NAME: a node in a real container of a
// dockerd this test run started (dockerenv_test.go).

func TestDocker_REPLAndPassword(t *testing.T) {
	e := dockerEnv(t)
	name := e.container(t)
	s := e.serve(t)
	host := "docker://" + name
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": host, "argv": []string{"python3", "-q"}}, &r)
	if r.Reason != "awaiting_input" || r.Output != ">>> " || r.Host != host {
		t.Fatalf("start: reason=%s output=%q host=%q detail=%q", r.Reason, r.Output, r.Host, r.StateDetail)
	}
	for i := range 20 {
		var sr mcpserver.SendResult
		s.call("send_input", map[string]any{"session_id": r.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &sr)
		if want := fmt.Sprintf("%d\n>>> ", i*7); sr.Output != want || sr.Reason != "awaiting_input" {
			t.Fatalf("round trip %d: output=%q reason=%s detail=%q, want %q awaiting_input", i, sr.Output, sr.Reason, sr.StateDetail, want)
		}
	}
	var sr mcpserver.SendResult
	s.call("send_input", map[string]any{"session_id": r.SessionID, "text": "import getpass; pw = getpass.getpass('Password: ')", "enter": true}, &sr)
	if sr.State != "awaiting_password" || sr.Output != "Password: " {
		t.Fatalf("getpass: state=%s output=%q", sr.State, sr.Output)
	}
	s.call("send_input", map[string]any{"session_id": r.SessionID, "text": "hunter22", "enter": true}, &sr)
	s.call("send_input", map[string]any{"session_id": r.SessionID, "text": "print(len(pw))", "enter": true}, &sr)
	if sr.Output != "8\n>>> " || strings.Contains(sr.Output, "hunter22") {
		t.Fatalf("after password: %q", sr.Output)
	}
	var hosts mcpserver.HostsResult
	s.call("list_hosts", nil, &hosts)
	if len(hosts.Hosts) != 1 || hosts.Hosts[0].Host != host || hosts.Hosts[0].State != "connected" || !slices.Contains(hosts.Hosts[0].Sessions, r.SessionID) {
		t.Fatalf("list_hosts: %+v", hosts.Hosts)
	}
	s.call("terminate_process", map[string]any{"session_id": r.SessionID}, nil)
	if top := e.top(t, name); len(top) != 2 || !strings.HasPrefix(top[0], "/bin/sleep") || !strings.HasSuffix(top[1], "/agentty node") {
		t.Fatalf("after terminate the container runs %q, want only its sleep and the node (kept for later sessions)", top)
	}
}

func TestDocker_SeqChecksum(t *testing.T) {
	e := dockerEnv(t)
	name := e.container(t)
	s := e.serve(t)
	page := map[string]any{"overflow": "page", "max_bytes": session.MaxBytesCap}
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": "docker://" + name, "argv": []string{"seq", "1", "1000000"}, "mode": "pipe", "timeout_ms": 0,
		"overflow": "page", "max_bytes": session.MaxBytesCap}, &r)
	got := r.Output + s.readAll(r.SessionID, 0, page)
	var want strings.Builder
	for i := 1; i <= 1000000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if sha256.Sum256([]byte(got)) != sha256.Sum256([]byte(want.String())) {
		t.Fatalf("seq output: %d bytes, want %d (tail %q)", len(got), want.Len(), got[max(0, len(got)-30):])
	}
}
