package httpserver

import (
	"net/http"

	"github.com/agentty/agentty/internal/mcpserver"
)

// stampRemote puts the connection's address into the header the tools read
// for the audit log, replacing whatever the client sent under that name, so
// a client cannot claim another address.
func stampRemote(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set(mcpserver.RemoteAddrHeader, r.RemoteAddr)
		h.ServeHTTP(w, r)
	})
}
