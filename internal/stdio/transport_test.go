package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peer is a raw client: it writes lines to a server on a Transport and
// reads its replies line by line.
type peer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

type echoIn struct {
	Text string `json:"text"`
}

type echoOut struct {
	Text string `json:"text"`
}

func newPeer(t *testing.T, tr *Transport) *peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr.In, tr.Out = inR, outW
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
		return nil, echoOut(in), nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	p := &peer{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	go func() { p.done <- srv.Run(ctx, tr); outW.Close() }()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
	})
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	p.reply()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("server stopped reading: %v", err)
	}
}

// reply reads the next line, failing if the server ended.
func (p *peer) reply() map[string]any {
	p.t.Helper()
	line, err := p.out.ReadString('\n')
	if err != nil {
		p.t.Fatalf("no reply (server ended: %v)", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		p.t.Fatalf("reply is not JSON: %v: %.200s", err, line)
	}
	return m
}

func (p *peer) echo(id int, text string) {
	p.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "echo", "arguments": map[string]any{"text": text}}})
	p.send(string(b))
	r := p.reply()
	res, _ := r["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if r["id"] != float64(id) || sc["text"] != text {
		p.t.Fatalf("echo %d: got %v", id, r)
	}
}

func TestTransport_MalformedLinesAreAnswered(t *testing.T) {
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	deepObj := `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat(`{"a":`, 1001) + "1" + strings.Repeat("}", 1001) + "}"
	cases := []struct {
		name, line string
		code       float64
		id         any
		msg        string // phrase of the error message
	}{
		{"deep nesting", deep, -32700, nil, "nested deeper than 1000 levels"},
		{"deep object", deepObj, -32700, nil, "nested deeper than 1000 levels"},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"tools/ca`, -32700, nil, "not valid JSON"},
		{"nul byte", "\x00", -32700, nil, `not valid JSON (1 bytes, starting "\x00")`},
		{"garbage", "hello", -32700, nil, "not valid JSON"},
		{"batch", `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, -32600, nil, "batches are not supported"},
		{"empty batch", `[]`, -32600, nil, "batches are not supported"},
		{"wrong version", `{"jsonrpc":"1.0","id":9,"method":"ping"}`, -32600, float64(9), "invalid message version tag"},
		{"bad id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, nil, "Invalid Request"},
		{"not an object", `42`, -32600, nil, "Invalid Request"},
		{"too long", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` + strings.Repeat("x", 9000) + `"}}`, -32700, nil, "over the 8192-byte limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPeer(t, &Transport{MaxLine: 8192})
			p.echo(1, "before")
			p.send(c.line)
			r := p.reply()
			e, _ := r["error"].(map[string]any)
			if id, ok := r["id"]; !ok || id != c.id || e == nil || e["code"] != c.code || !strings.Contains(e["message"].(string), c.msg) {
				t.Fatalf("reply to %q: %v; want id %v, code %v, message with %q", c.name, r, c.id, c.code, c.msg)
			}
			p.echo(2, "after")
		})
	}
}

func TestTransport_BlankLinesAndCRLF(t *testing.T) {
	p := newPeer(t, &Transport{})
	p.send("")
	p.send("   \r")
	p.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}` + "\r")
	if r := p.reply(); r["id"] != float64(5) || r["result"] == nil {
		t.Fatalf("ping: %v", r)
	}
	p.echo(6, "ok")
}

func TestTransport_ReplyCap(t *testing.T) {
	p := newPeer(t, &Transport{MaxReply: 4096})
	p.echo(1, "small")
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "echo", "arguments": map[string]any{"text": strings.Repeat("\x01", 3000)}}})
	p.send(string(b))
	r := p.reply()
	e, _ := r["error"].(map[string]any)
	if r["id"] != float64(2) || e == nil || !strings.Contains(e["message"].(string), "over the 4096-byte cap") {
		t.Fatalf("oversized reply: %.300v", r)
	}
	// Errors that quote unknown names are clipped.
	p.send(`{"jsonrpc":"2.0","id":3,"method":"` + strings.Repeat("m", 100000) + `"}`)
	r = p.reply()
	e, _ = r["error"].(map[string]any)
	if r["id"] != float64(3) || e == nil || len(e["message"].(string)) > maxErrorText+64 || !strings.Contains(e["message"].(string), "bytes cut") {
		t.Fatalf("unknown method: %.300v", r)
	}
	p.echo(4, "alive")
}
