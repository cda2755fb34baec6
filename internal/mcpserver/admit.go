package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/gate"
	"github.com/agentty/agentty/internal/session"
)

// The tools' side of the gate (internal/gate): each admission turns a
// call's arguments into the gate's request and the MCP request into a
// gate.Caller. What may run is decided there, not here.

// admit is the single place every command passes before it runs (see
// gate.Gate.Command).
func (t *tools) admit(ctx context.Context, req *mcp.CallToolRequest, c gate.Command) error {
	return t.gate.Command(ctx, t.caller(req), c)
}

// admitStart applies the policy to start_process.
func (t *tools) admitStart(ctx context.Context, req *mcp.CallToolRequest, in StartInput) error {
	return t.gate.Start(ctx, t.caller(req), gate.Command{Script: in.Command, Argv: in.Argv, Env: in.Env, Cwd: in.Cwd})
}

// admitShell passes the shell program open_shell would start (the
// detected path here, the name as given on a host) through the policy.
func (t *tools) admitShell(ctx context.Context, req *mcp.CallToolRequest, program string, in OpenShellInput) error {
	return t.gate.Shell(ctx, t.caller(req), program, in.Env, in.Cwd, in.Host)
}

// admitWrite passes write_file's absolute target p (on host, if not "")
// through the policy's path check.
func (t *tools) admitWrite(ctx context.Context, req *mcp.CallToolRequest, sessionID, p, host string) error {
	return t.gate.Write(ctx, t.caller(req), sessionID, p, host)
}

// admitInput applies the policy to send_input (gate.Gate.Input).
func (t *tools) admitInput(ctx context.Context, req *mcp.CallToolRequest, s *session.Session, in SendInput) error {
	return t.gate.Input(ctx, t.caller(req), s, gateInput(in))
}

func gateInput(in SendInput) gate.Input {
	return gate.Input{Text: in.Text, Keys: in.Keys, Enter: in.Enter, EOF: in.StdinEOF}
}
