package main

import (
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/mcpserver"
)

// An error never echoes a huge argument, and no reply exceeds the cap,
// whatever the input.
func TestServe_RepliesStayBounded(t *testing.T) {
	t.Parallel()
	s := startRaw(t, "-no-store")
	const small = 2 << 10 // an error reply is a few hundred bytes
	// The 2.4 MB took seconds per call under -race; 300 kB still
	// made replies of 1.5 MB.
	ctl := strings.Repeat("\x01", 300_000)
	cases := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"run_command success_file", "run_command", map[string]any{"argv": []string{"true"}, "success_file": strings.Repeat("line of text\n", 373_847)}},
		{"start_process mode", "start_process", map[string]any{"argv": []string{"true"}, "mode": ctl}},
		{"write_file encoding", "write_file", map[string]any{"path": "f", "content": "x", "encoding": ctl}},
		{"open_shell shell", "open_shell", map[string]any{"shell": ctl}},
		{"list_sessions since", "list_sessions", map[string]any{"since": ctl}},
		{"read_output session_id", "read_output", map[string]any{"session_id": ctl}},
		{"send_input keys", "send_input", map[string]any{"session_id": "s1", "keys": []string{ctl}}},
		// Short enough for the schema: the handler's own error quotes an excerpt.
		{"start_process mode within bound", "start_process", map[string]any{"argv": []string{"true"}, "mode": strings.Repeat("\x01", 32)}},
		{"read_output overflow within bound", "read_output", map[string]any{"session_id": "s1", "overflow": strings.Repeat("\x01", 32)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.t = t
			res, r := s.tool(c.tool, c.args)
			if r.size > small {
				t.Fatalf("%s: reply of %d bytes, want at most %d", c.name, r.size, small)
			}
			if r.Error == nil && !res.IsError {
				t.Fatalf("%s: not an error: %.300s", c.name, r.Result)
			}
		})
	}

	// Seven sessions whose commands are 0.9 MiB each (the policy checks at
	// most 1 MiB, the kernel takes 128 KiB per argument): list_sessions
	// would send them twice (text and structured content), 12.6 MiB.
	t.Run("list_sessions over the cap", func(t *testing.T) {
		s.t = t
		argv := []string{"true"}
		for range 8 {
			argv = append(argv, strings.Repeat("x", 120<<10))
		}
		for range 7 {
			res, _ := s.tool("start_process", map[string]any{"argv": argv, "mode": "pipe", "timeout_ms": 0})
			if res.IsError {
				t.Fatalf("start_process: %+v", res.Content)
			}
		}
		res, r := s.tool("list_sessions", map[string]any{"include_exited": true})
		if r.size > mcpserver.MaxReply {
			t.Fatalf("list_sessions reply of %d bytes, over the cap %d", r.size, mcpserver.MaxReply)
		}
		if !res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, "over the") || !strings.Contains(res.Content[0].Text, "reply cap") {
			t.Fatalf("list_sessions over the cap: %.300s", r.Result)
		}
	})
	// The server is still there.
	if res, _ := s.tool("list_sessions", map[string]any{"include_exited": false}); res.IsError {
		t.Fatalf("list_sessions: %+v", res.Content)
	}
}
