package server

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/procs"
)

// countCalls is MCP receiving middleware that tells the scheduler a call
// arriving while another is in flight is bulk work (procs.Busy): agents
// calling at once, or many clients over HTTP, get every CPU.
func (s *Server) countCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		if s.calls.Add(1) > 1 {
			procs.Busy()
		}
		defer s.calls.Add(-1)
		return next(ctx, method, req)
	}
}
