package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectSelf launches this binary as "agentty serve" and connects an MCP
// client to it over stdio, exactly as an MCP client application would.
func connectSelf(ctx context.Context, extra ...string) (*mcp.ClientSession, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, append([]string{"serve", "-log-level", "warn"}, extra...)...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "agentty-cli", Version: version}, nil)
	return client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
}

// call invokes a tool and decodes its structured result into out.
func call(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any, out any) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return res, fmt.Errorf("%s: %s", name, textOf(res))
	}
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return res, err
		}
		if err := json.Unmarshal(b, out); err != nil {
			return res, err
		}
	}
	return res, nil
}

func textOf(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}
