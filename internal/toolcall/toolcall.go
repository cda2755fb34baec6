// Package toolcall calls MCP tools from Go clients (the demo, the bench and
// the tests) and decodes their results, so each caller does not re-implement
// the structured-content round trip.
package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call invokes a tool and, when it succeeded and out is non-nil, decodes
// its structured result into out. A tool error is returned as a result with
// IsError set, not as an error: err is for protocol and decoding failures.
func Call(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any, out any) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError || out == nil {
		return res, err
	}
	b, err := structured(res)
	if err != nil {
		return res, err
	}
	return res, json.Unmarshal(b, out)
}

// structured returns a result's structured content as JSON, with a long
// output that the server sent once, in the first text content block
// (output_in: "content"), put back in place.
func structured(res *mcp.CallToolResult) ([]byte, error) {
	b, ok := res.StructuredContent.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(res.StructuredContent); err != nil {
			return nil, err
		}
	}
	if !bytes.Contains(b, []byte(`"output_in":"content"`)) {
		return b, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	first, ok := firstText(res)
	if !ok {
		return nil, fmt.Errorf("output_in is content but the result has no text content")
	}
	o, err := json.Marshal(first)
	if err != nil {
		return nil, err
	}
	m["output"] = o
	delete(m, "output_in")
	return json.Marshal(m)
}

func firstText(res *mcp.CallToolResult) (string, bool) {
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text, true
		}
	}
	return "", false
}

// Text joins the text content blocks of a result.
func Text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// Checked is Call with a tool error returned as an error that names the
// tool and quotes its text, for clients that stop at the first failure.
func Checked(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any, out any) (*mcp.CallToolResult, error) {
	res, err := Call(ctx, cs, name, args, out)
	if err == nil && res.IsError {
		err = fmt.Errorf("%s: %s", name, Text(res))
	}
	return res, err
}
