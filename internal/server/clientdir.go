package server

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientDirKey carries, in an MCP connection's context, the working
// directory of the client's "agentty serve": a daemon serves clients
// started in many directories, and "the server's directory" (the default
// cwd of a new local session) must stay each client's own, as it is when
// serve runs standalone.
type clientDirKey struct{}

// withClientDir returns ctx carrying dir as the connection's client
// directory; a relative or empty dir is ignored.
func withClientDir(ctx context.Context, dir string) context.Context {
	if !filepath.IsAbs(dir) {
		return ctx
	}
	return context.WithValue(ctx, clientDirKey{}, filepath.Clean(dir))
}

// cwdTools are the tools whose "cwd" argument defaults to the server's
// directory for a local session.
var cwdTools = map[string]bool{"start_process": true, "run_command": true, "open_shell": true}

// clientDir is MCP receiving middleware: on a connection that carries a
// client directory, a call of a cwdTools tool without "cwd" (and without a
// remote "host") gets the client's directory as its cwd.
func clientDir(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		dir, _ := ctx.Value(clientDirKey{}).(string)
		if dir == "" || method != "tools/call" {
			return next(ctx, method, req)
		}
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if !ok || !cwdTools[p.Name] {
			return next(ctx, method, req)
		}
		var args map[string]json.RawMessage
		if json.Unmarshal(p.Arguments, &args) != nil || args == nil {
			return next(ctx, method, req)
		}
		if _, set := args["cwd"]; set || remoteHost(args["host"]) {
			return next(ctx, method, req)
		}
		args["cwd"], _ = json.Marshal(dir)
		if b, err := json.Marshal(args); err == nil {
			p.Arguments = b
		}
		return next(ctx, method, req)
	}
}

// remoteHost reports whether a "host" argument names a remote host.
func remoteHost(raw json.RawMessage) bool {
	var h string
	return raw != nil && json.Unmarshal(raw, &h) == nil && h != ""
}
