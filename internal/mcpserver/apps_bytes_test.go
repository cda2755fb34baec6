package mcpserver

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// replFlow runs tools/list and a python REPL flow (start, one line, stop)
// for a client with options co and returns the server's reply to each, as
// the stdio transport writes it.
func replFlow(t *testing.T, co *mcp.ClientOptions) (list []byte, calls [][]byte) {
	t.Helper()
	wire, cs, mgr := wiredClient(t, co)
	c := &client{t: t, cs: cs, mgr: mgr}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r := c.start(map[string]any{"argv": []string{"python3", "-q"}, "until": ">>> "})
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "print(6*7)", "enter": true, "until": ">>> "}, nil)
	c.call("terminate_process", map[string]any{"session_id": r.SessionID}, nil)
	for _, msg := range wire.written() {
		switch {
		case bytes.Contains(msg, []byte(`"tools":[`)):
			list = msg
		case bytes.Contains(msg, []byte(`"content":[`)):
			calls = append(calls, msg)
		}
	}
	if list == nil || len(calls) != 3 {
		t.Fatalf("saw tools/list %v and %d tool replies, want 3", list != nil, len(calls))
	}
	return list, calls
}

// TestApps_ModelBytes: the bytes a model reads in a REPL flow are the
// same with the extension declared as without (what varies from run to
// run aside); only tools/list grows, for clients that declared it. The
// figures are logged for docs/apps.md.
func TestApps_ModelBytes(t *testing.T) {
	// What varies from run to run: numbers (durations, pids, offsets) and
	// whether python was seen blocked on its read when the prompt matched.
	volatile := regexp.MustCompile(`[0-9][0-9.]*(ms|s)?|awaiting_input|running|,"state_detail":"[^"]*"`)
	flow := func(name string, co *mcp.ClientOptions) (int, [][]byte) {
		list, calls := replFlow(t, co)
		n := 0
		for _, c := range calls {
			n += len(c)
		}
		t.Logf("%s: tools/list %d bytes; start_process, send_input, terminate_process replies %d bytes", name, len(list), n)
		return len(list), calls
	}
	plainList, plain := flow("without the extension", nil)
	appsList, apps := flow("with the extension", &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
		Extensions: map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}}}})
	for i := range plain {
		p, a := volatile.ReplaceAll(plain[i], nil), volatile.ReplaceAll(apps[i], nil)
		if !bytes.Equal(p, a) {
			t.Errorf("reply %d differs with the extension:\n without: %s\n    with: %s", i, p, a)
		}
	}
	if appsList <= plainList {
		t.Errorf("tools/list is %d bytes with the extension, %d without: the app is not offered", appsList, plainList)
	}
}
