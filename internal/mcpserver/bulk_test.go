package mcpserver

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/session"
)

// TestReadOutput_SendOnce reads pages of a pipe session's output: a long
// one travels once (the first text content block, exactly; structured
// content says output_in content and the Go client puts it back), a short
// one in both places, and an 8 MiB page fits in one reply.
func TestReadOutput_SendOnce(t *testing.T) {
	c := newClient(t, session.Config{OutputLimit: 64 << 20})
	// 8,000,000 bytes: 125,000 lines of 63 digits and letters and a newline.
	var st StartResult
	c.call("start_process", map[string]any{"command": "yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0 | head -c 8000000",
		"mode": "pipe", "return_on": []string{"exit"}, "timeout_ms": 60000, "max_bytes": 1}, &st)
	if st.State != "exited" {
		t.Fatalf("start: state %s, want exited", st.State)
	}
	line := "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0\n"
	for _, tc := range []struct {
		name     string
		maxBytes int
		sentOnce bool
	}{
		{"short", 64 << 10, false},
		{"long", 1 << 20, true},
		{"8MiB", 8 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := min(tc.maxBytes, 8000000) / len(line) * len(line)
			wantSum := sha256.Sum256([]byte(strings.Repeat(line, want/len(line))))
			var r ReadResult
			res := c.call("read_output", map[string]any{"session_id": st.SessionID, "cursor": 0, "max_bytes": tc.maxBytes, "overflow": "page", "timeout_ms": 0}, &r)
			if len(r.Output) != want || sha256.Sum256([]byte(r.Output)) != wantSum {
				t.Fatalf("decoded output: %d bytes, want %d of the exact lines", len(r.Output), want)
			}
			var raw struct {
				Output   *string `json:"output"`
				OutputIn string  `json:"output_in"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &raw); err != nil || raw.Output == nil {
				t.Fatalf("structured content %.200s: %v", b, err)
			}
			first := res.Content[0].(*mcp.TextContent).Text
			reply, _ := json.Marshal(res)
			if !tc.sentOnce {
				if raw.OutputIn != "" || *raw.Output != r.Output || len(res.Content) != 1 {
					t.Errorf("short page: output_in %q, structured output %d bytes, %d content blocks; want it in both, one block", raw.OutputIn, len(*raw.Output), len(res.Content))
				}
				return
			}
			if raw.OutputIn != "content" || *raw.Output != "" || first != r.Output {
				t.Errorf("long page: output_in %q, structured output %d bytes, first block %d bytes; want content, 0, the output", raw.OutputIn, len(*raw.Output), len(first))
			}
			// Once: the output's JSON (a newline escapes to 2 bytes) and a little.
			if limit := want + want/len(line) + 4096; len(reply) > limit {
				t.Errorf("reply is %d bytes for %d bytes of output, want at most %d", len(reply), want, limit)
			}
			if len(reply) > MaxReply {
				t.Errorf("reply is %d bytes, over MaxReply %d", len(reply), MaxReply)
			}
			if !strings.Contains(text(res), "["+st.SessionID+" exited") {
				t.Errorf("text lacks the summary: %.200q", text(res)[len(first):])
			}
		})
	}
}

// TestReplySize_Bound checks the reply cap's size estimate against the
// encoding it stands for: never below it, and close.
func TestReplySize_Bound(t *testing.T) {
	for _, s := range []string{"", "plain", "a\"b\\c\nd\te\rf\bg\fh", "\x00\x01\x1f<>&", "\u2028\u2029 é 日本 🙂",
		"bad \xff\xfe utf8 \xe2\x82", strings.Repeat("x\n", 5000)} {
		b, _ := json.Marshal(s)
		if got := jsonStringLen(s); got != len(b) {
			t.Errorf("jsonStringLen(%q) = %d, want %d (valid utf-8: %v)", s, got, len(b), utf8.ValidString(s))
		}
		for _, r := range []*mcp.CallToolResult{
			{Content: []mcp.Content{&mcp.TextContent{Text: s}}},
			{Content: []mcp.Content{&mcp.TextContent{Text: s}, &mcp.TextContent{Text: "[s1]"}}, StructuredContent: json.RawMessage(fmt.Sprintf(`{"output":%s}`, b))},
			{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: true, StructuredContent: map[string]any{"x": s}},
		} {
			enc, _ := json.Marshal(r)
			got, err := replySize(r)
			if err != nil || got < len(enc) || got > len(enc)+256 {
				t.Errorf("replySize = %d, %v; encoded %d bytes", got, err, len(enc))
			}
		}
	}
}
