package main

import (
	"strings"
	"testing"
)

// A line the server cannot decode is answered with a JSON-RPC error, and
// the server, its connection and its sessions carry on.
func TestServe_MalformedLineKeepsSessions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, line string
		code       int
	}{
		{"deep nesting", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), -32700},
		{"truncated JSON", `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"list_sess`, -32700},
		{"NUL byte", "\x00", -32700},
		{"not JSON-RPC", `{"hello":"world"}`, -32600},
	}
	s := startRaw(t, "-no-store")
	res, _ := s.tool("start_process", map[string]any{"argv": []string{"cat"}, "mode": "pipe", "timeout_ms": 0})
	id, _ := res.Structured["session_id"].(string)
	if res.IsError || id == "" {
		t.Fatalf("start_process cat: %+v", res)
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.t = t
			s.send(c.line)
			r := s.next()
			if string(r.ID) != "null" || r.Error == nil || r.Error.Code != c.code {
				t.Fatalf("reply to %s: id %s error %+v, want id null code %d", c.name, r.ID, r.Error, c.code)
			}
			// The session started before the bad line still answers.
			word := "ping" + string(rune('a'+i))
			res, _ := s.tool("send_input", map[string]any{"session_id": id, "text": word + "\n", "until": word, "timeout_ms": 30000})
			if res.IsError || !strings.Contains(res.Structured["output"].(string), word) {
				t.Fatalf("send_input after %s: %+v", c.name, res)
			}
		})
	}
}
