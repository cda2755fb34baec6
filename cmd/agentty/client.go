package main

import (
	"context"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/toolcall"
)

// connectSelf launches this binary as "agentty serve -standalone" and
// connects an MCP client to it over stdio, exactly as an MCP client
// application would; standalone, so a demo leaves no daemon behind.
func connectSelf(ctx context.Context, extra ...string) (*mcp.ClientSession, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, append([]string{"serve", "-standalone", "-log-level", "warn"}, extra...)...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "agentty-cli", Version: version}, nil)
	return client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
}

// call invokes a tool, treating a tool error as an error, and decodes its
// structured result into out.
var call = toolcall.Checked

var textOf = toolcall.Text
