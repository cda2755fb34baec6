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
	ConnsOpen     int    `json:"conns_open"`      // HTTP connections open within the limits
	ConnLimit     int    `json:"conn_limit"`      // the most that may be open at once
	ConnsRefused  int64  `json:"conns_refused"`   // connections over a limit since the start
	ConnsEvicted  int64  `json:"conns_evicted"`   // unproven or idle ones closed to make room for a newcomer
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	h := Health{Status: "ok", CallsInFlight: s.inFlight.Load(), ConnsRefused: s.lim.refused.Load(), ConnsEvicted: s.lim.evicted.Load()}
	h.ConnsOpen, h.ConnLimit = s.lim.counts()
	for range s.mcp.Sessions() {
		h.MCPClients++
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(h)
}
