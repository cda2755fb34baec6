package httpserver

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// streamKey carries, in the context of a legacy SSE connection, the context
// of the hanging GET that is that connection.
type streamKey struct{}

// markStream makes the GET that opens a legacy SSE connection findable from
// the calls made over it: the SDK derives the connection's context from the
// GET's (without its cancellation), so values set here reach every handler.
func markStream(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			r = r.WithContext(context.WithValue(r.Context(), streamKey{}, r.Context()))
		}
		next.ServeHTTP(w, r)
	})
}

// bindCall is MCP receiving middleware around every request: it counts
// tool calls in flight for /healthz and ends a call's context when
//   - the server shuts down, so waits end at once instead of holding the
//     shutdown (the SDK detaches connection contexts from requests), and
//   - for a legacy SSE connection, its GET ends: without this a client that
//     vanished mid-wait would hold the wait until its timeout, since the SDK
//     closes such a connection gracefully, waiting for in-flight calls.
func (s *Server) bindCall(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			s.inFlight.Add(1)
			defer s.inFlight.Add(-1)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.base, cancel)()
		if stream, ok := ctx.Value(streamKey{}).(context.Context); ok {
			defer context.AfterFunc(stream, cancel)()
		}
		return next(ctx, method, req)
	}
}
