package httpserver

import "net/http"

// sessionlessRevision is the first MCP revision without protocol sessions:
// each POST carries its protocol version, capabilities and the whole call.
const sessionlessRevision = "2026-07-28"

// byRevision sends requests of the sessionless revisions (the
// Mcp-Protocol-Version header, which those revisions require on every
// request, is 2026-07-28 or later) to sessionless and everything else
// (initialize, and later requests of the 2025 revisions) to sessioned.
// Revision strings are dates, so they compare as strings.
func byRevision(sessionless, sessioned http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(protocolVersionHeader) >= sessionlessRevision {
			sessionless.ServeHTTP(w, r)
			return
		}
		sessioned.ServeHTTP(w, r)
	})
}
