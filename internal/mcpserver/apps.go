package mcpserver

// MCP Apps (the io.modelcontextprotocol/ui extension): a client that
// declares the extension renders ui://agentty/terminal, a live terminal of
// the session a tool call created or read, beside the call in the chat.
// Everything here is conditional on that declaration, made per connection
// at initialize: for a client that does not declare it, initialize,
// tools/list, resources/list and every result are what they were before
// the app existed, so no model's context grows by a byte (docs/apps.md).

import (
	"context"
	"fmt"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// AppsExtension is the MCP Apps extension's identifier in capabilities.
	AppsExtension = "io.modelcontextprotocol/ui"
	// AppURI is the terminal app's resource; AppMIME its profile.
	AppURI  = "ui://agentty/terminal"
	AppMIME = "text/html;profile=mcp-app"
)

// appShown are the tools whose call a supporting client shows the
// terminal app beside: each creates or reads one session.
var appShown = map[string]bool{"start_process": true, "open_shell": true, "read_screen": true, "run_command": true}

// appOnly are the tools only the app calls (visibility ["app"]): the model
// never sees them, and a client without the extension cannot call them.
var appOnly = map[string]bool{"app_view": true, "app_input": true}

// declaresApps reports whether the client declared the extension: in the
// request's _meta (protocol 2026-07-28, stateless: every request carries
// the client's capabilities) or, before it, at initialize.
func declaresApps(req mcp.Request) bool {
	r, ok := req.(interface {
		ClientCapabilities() *mcp.ClientCapabilities
	})
	if !ok {
		return false
	}
	return capsDeclareApps(r.ClientCapabilities())
}

func capsDeclareApps(c *mcp.ClientCapabilities) bool {
	if c == nil {
		return false
	}
	_, ok := c.Extensions[AppsExtension]
	return ok
}

// withApps returns a copy of caps that declares the extension; the
// server's own capabilities are shared by every connection.
func withApps(caps *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{}
	if caps != nil {
		*c = *caps
	}
	c.Extensions = maps.Clone(c.Extensions)
	if c.Extensions == nil {
		c.Extensions = map[string]any{}
	}
	c.Extensions[AppsExtension] = map[string]any{}
	return c
}

// appsGate is the receiving middleware that shows the app to clients that
// declared the extension and hides every trace of it from the others.
func appsGate(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize", "server/discover":
			res, err := next(ctx, method, req)
			if err != nil || !declaresApps(req) {
				return res, err
			}
			switch r := res.(type) {
			case *mcp.InitializeResult:
				out := *r
				out.Capabilities = withApps(r.Capabilities)
				return &out, nil
			case *mcp.DiscoverResult:
				out := *r
				out.Capabilities = withApps(r.Capabilities)
				return &out, nil
			}
			return res, err
		case "tools/list":
			res, err := next(ctx, method, req)
			r, ok := res.(*mcp.ListToolsResult)
			if err != nil || !ok {
				return res, err
			}
			return listForApps(r, declaresApps(req)), nil
		case "tools/call":
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && appOnly[p.Name] && !declaresApps(req) {
				// As the SDK answers a tool it does not have: to this
				// client, it does not exist.
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", p.Name)}
			}
		case "resources/list":
			res, err := next(ctx, method, req)
			r, ok := res.(*mcp.ListResourcesResult)
			if err != nil || !ok || declaresApps(req) {
				return res, err
			}
			out := *r
			out.Resources = make([]*mcp.Resource, 0, len(r.Resources))
			for _, x := range r.Resources {
				if x.URI != AppURI {
					out.Resources = append(out.Resources, x)
				}
			}
			return &out, nil
		}
		return next(ctx, method, req)
	}
}

// listForApps returns the tools a client sees. For one that declared the
// extension, the tools of appShown name the app, and every tool but the
// app's own is for the model only: the app may call app_view and
// app_input and nothing else (hosts refuse an app's call to a tool whose
// visibility lacks "app", which it has by default). For another client,
// the app's own tools are left out. The server's Tools are never written
// to.
func listForApps(r *mcp.ListToolsResult, apps bool) *mcp.ListToolsResult {
	out := *r
	out.Tools = make([]*mcp.Tool, 0, len(r.Tools))
	for _, tool := range r.Tools {
		switch {
		case appOnly[tool.Name]:
			if !apps {
				continue
			}
		case apps:
			ui := map[string]any{"visibility": []string{"model"}}
			if appShown[tool.Name] {
				ui["resourceUri"] = AppURI
			}
			c := *tool
			c.Meta = mcp.Meta{"ui": ui}
			tool = &c
		}
		out.Tools = append(out.Tools, tool)
	}
	return &out
}
