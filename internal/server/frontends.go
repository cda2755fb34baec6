package server

import (
	"context"
	"io"
	"os"

	"github.com/agentty/agentty/internal/httpserver"
	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/stdio"
)

// Stdio serves one client on stdin and stdout: what MCP clients launch.
type Stdio struct {
	In  io.ReadCloser // nil: os.Stdin
	Out io.Writer     // nil: os.Stdout
}

// Serve implements Transport.
func (t Stdio) Serve(ctx context.Context, ep Endpoint) error {
	ep.Logger.Info("agentty serving MCP on stdio", "version", ep.Version, "pid", os.Getpid())
	// A malformed line is answered with an error; the SDK's own stdio
	// transport would end the server, and every session, at the first.
	tr := &stdio.Transport{In: t.In, Out: t.Out, Logger: ep.Logger, MaxReply: mcpserver.MaxReply}
	return ep.MCP.Run(ctx, tr)
}

// httpShutdownGrace bounds the HTTP shutdown inside ShutdownWait, so the
// front end reports how it stopped before Serve gives up on it.
const httpShutdownGrace = ShutdownWait * 2 / 3

// HTTP serves many clients over MCP streamable HTTP (/mcp) and the legacy
// HTTP+SSE transport (/sse). Check Options before New to refuse a bad or
// unsafe start at once.
type HTTP struct {
	Options HTTPOptions // ShutdownGrace 0: within ShutdownWait; Logger nil: the server's
	// Listening, if set, is called with the server's URL (scheme://host:port)
	// once it listens, before it serves.
	Listening func(url string)
}

// Serve implements Transport: it listens, then serves until ctx ends.
func (t HTTP) Serve(ctx context.Context, ep Endpoint) error {
	o := t.Options
	if o.ShutdownGrace == 0 {
		o.ShutdownGrace = httpShutdownGrace
	}
	if o.Logger == nil {
		o.Logger = ep.Logger
	}
	o.Console = ep.Console
	o.Guard = ep.Guard
	hs, err := httpserver.New(ep.MCP, &o)
	if err != nil {
		return startError{err}
	}
	ep.Logger.Info("agentty serving MCP over HTTP", "version", ep.Version, "pid", os.Getpid(),
		"url", hs.URL()+"/mcp", "sse", hs.URL()+"/sse", "web", hs.URL()+"/", "auth", o.Token != "")
	if t.Listening != nil {
		t.Listening(hs.URL())
	}
	return hs.Serve(ctx)
}
