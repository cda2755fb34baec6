package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServe_Errors(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-such-dir")

	// Sessions the cases act on: a running PTY, a running pipe, an exited one.
	var ptyS, pipeS, doneS readResult
	s.call("start_process", map[string]any{"argv": []string{"sleep", "1000"}, "timeout_ms": 0}, &ptyS)
	s.call("start_process", map[string]any{"argv": []string{"sleep", "1000"}, "mode": "pipe", "timeout_ms": 0}, &pipeS)
	s.call("start_process", map[string]any{"argv": []string{"true"}, "mode": "pipe", "timeout_ms": 30000, "settle_ms": 0}, &doneS)
	if doneS.State != "exited" {
		t.Fatalf("true did not exit within the start call: %+v", doneS)
	}
	pty, pipe, done := ptyS.SessionID, pipeS.SessionID, doneS.SessionID

	cases := []struct {
		name string
		tool string
		args map[string]any
		want []string // phrases the error text must contain
	}{
		{"read_output unknown session", "read_output", map[string]any{"session_id": "s999"},
			[]string{`session not found: "s999"`, "call list_sessions"}},
		{"send_input unknown session", "send_input", map[string]any{"session_id": "s999", "text": "x"},
			[]string{`session not found: "s999"`, "call list_sessions"}},
		{"terminate_process unknown session", "terminate_process", map[string]any{"session_id": "s999"},
			[]string{`session not found: "s999"`, "call list_sessions"}},
		{"get_session_info unknown session", "get_session_info", map[string]any{"session_id": "nosuchname"},
			[]string{`session not found: "nosuchname"`, "call list_sessions"}},
		{"delete_session unknown session", "delete_session", map[string]any{"session_id": "s999"},
			[]string{`session not found: "s999"`}},
		{"invalid until regex", "read_output", map[string]any{"session_id": pty, "until": "(unclosed", "timeout_ms": 0},
			[]string{"until is not a valid RE2 regex", "missing closing )", `escape literal characters`}},
		{"argv command not found", "start_process", map[string]any{"argv": []string{"nosuchprogram-xyz"}},
			[]string{"command not found", `"nosuchprogram-xyz" is not in PATH`, "check the spelling"}},
		{"command form not found", "start_process", map[string]any{"command": "nosuchprogram-xyz --flag"},
			[]string{"command not found", `"nosuchprogram-xyz" is not in PATH`}},
		{"cwd missing", "start_process", map[string]any{"argv": []string{"true"}, "cwd": missing},
			[]string{"bad working directory", missing + `" does not exist; pass an existing directory`}},
		{"cwd is a file", "start_process", map[string]any{"argv": []string{"true"}, "cwd": file},
			[]string{"bad working directory", file + `" is not a directory`}},
		{"resize_pty on pipe session", "resize_pty", map[string]any{"session_id": pipe, "rows": 30, "cols": 100},
			[]string{"not a PTY session", "resize_pty needs a session started with mode=pty"}},
		{"resize rows 0", "resize_pty", map[string]any{"session_id": pty, "rows": 0, "cols": 100},
			[]string{"rows and cols must be between 1 and 1000 (got 0x100)"}},
		{"resize rows 1001", "resize_pty", map[string]any{"session_id": pty, "rows": 1001, "cols": 100},
			[]string{"rows and cols must be between 1 and 1000 (got 1001x100)"}},
		{"start rows 1001", "start_process", map[string]any{"argv": []string{"true"}, "rows": 1001},
			[]string{"rows and cols must be between 1 and 1000 (got 1001x120)"}},
		{"delete running session", "delete_session", map[string]any{"session_id": pty},
			[]string{"process is still running", "call terminate_process first"}},
		{"unknown key", "send_input", map[string]any{"session_id": pty, "keys": []string{"ctrl+shift+banana"}},
			[]string{`unknown key "ctrl+shift+banana"`, "known keys: enter, tab"}},
		{"send to exited session", "send_input", map[string]any{"session_id": done, "text": "hi", "enter": true},
			[]string{"process has exited", "its output is still readable with read_output"}},
		{"cursor and since_line", "read_output", map[string]any{"session_id": pty, "cursor": 0, "since_line": 0},
			[]string{"give cursor or since_line, not both"}},
		{"unregister reader 0", "unregister_reader", map[string]any{"session_id": pty, "reader_id": 0},
			[]string{"reader 0 is the session's default cursor and cannot be unregistered"}},
		{"unregister unknown reader", "unregister_reader", map[string]any{"session_id": pty, "reader_id": 7},
			[]string{"reader not found: reader 7", "call register_reader first"}},
		{"read unknown reader", "read_output", map[string]any{"session_id": pty, "reader_id": 7, "timeout_ms": 0},
			[]string{"reader not found: reader 7", "readers are [0]"}},
		{"negative timeout", "read_output", map[string]any{"session_id": pty, "timeout_ms": -1},
			[]string{"timeout_ms must be >= 0"}},
		{"mode tty", "start_process", map[string]any{"argv": []string{"true"}, "mode": "tty"},
			[]string{`mode must be "pty" or "pipe", not "tty"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub := *s // report failures on the subtest
			sub.t = t
			msg := sub.toolError(tc.tool, tc.args)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s error %q lacks %q", tc.tool, msg, w)
				}
			}
		})
	}

	// None of that hurt the server: it still starts, reads and lists.
	var r readResult
	s.call("start_process", map[string]any{"command": "echo still-alive", "mode": "pipe", "timeout_ms": 30000, "settle_ms": 0}, &r)
	if r.Output != "still-alive\n" || r.State != "exited" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("start after errors = %+v, want still-alive and exit 0", r)
	}
	var list struct {
		Count int `json:"count"`
	}
	s.call("list_sessions", map[string]any{}, &list)
	if list.Count != 4 {
		t.Errorf("list_sessions count = %d, want 4 (no failed start left a session)", list.Count)
	}
}
