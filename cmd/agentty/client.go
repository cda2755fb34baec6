package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/toolcall"
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

// call invokes a tool, treating a tool error as an error, and decodes its
// structured result into out.
func call(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any, out any) (*mcp.CallToolResult, error) {
	res, err := toolcall.Call(ctx, cs, name, args, out)
	if err == nil && res.IsError {
		err = fmt.Errorf("%s: %s", name, toolcall.Text(res))
	}
	return res, err
}

var textOf = toolcall.Text
