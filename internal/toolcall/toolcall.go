// Package toolcall calls MCP tools from Go clients (the demo, the bench and
// the tests) and decodes their results, so each caller does not re-implement
// the structured-content round trip.
package toolcall

import (
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
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return res, err
	}
	return res, json.Unmarshal(b, out)
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
