package httpserver

import (
	"encoding/json"
	"net/http"
)

// Health is the body of GET /healthz. It carries counts only, no session
// content, so it needs no token.
type Health struct {
	Status        string `json:"status"`
	MCPClients    int    `json:"mcp_clients"`     // open MCP connections
	CallsInFlight int64  `json:"calls_in_flight"` // tool calls being handled, waits included
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	h := Health{Status: "ok", CallsInFlight: s.inFlight.Load()}
	for range s.mcp.Sessions() {
		h.MCPClients++
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(h)
}
