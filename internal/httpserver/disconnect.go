package httpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Header names of the streamable HTTP transport.
const (
	sessionIDHeader       = "Mcp-Session-Id"
	protocolVersionHeader = "Mcp-Protocol-Version"
)

// cancelOnDisconnect makes a client that drops a POST mid-call free that
// call at once, in the session-based revisions (2025-03-26 to 2025-11-25).
//
// There a call's handler belongs to the MCP session, not to the POST that
// carried it, because a client may resume the response stream later with
// Last-Event-ID. agentty keeps no event store, so a response whose stream
// is gone can never be delivered: waiting on would only hold a 60 s
// read_output for nobody. When the POST's connection ends before its
// response, this middleware sends the session the protocol's own
// notifications/cancelled for each request the POST carried; the SDK
// cancels the handler's context and the wait returns. A cancel for a call
// that already finished is ignored by the SDK, so the race is harmless.
//
// 2026-07-28 POSTs carry no session id; the SDK ties their handlers to the
// request itself (PropagateRequestCancellation).
func cancelOnDisconnect(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get(sessionIDHeader)
		if r.Method != http.MethodPost || sid == "" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "failed to read body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
		if r.Context().Err() == nil {
			return // the client is still there: it got its response
		}
		for _, id := range requestIDs(body) {
			log.Debug("client dropped its connection mid-call; cancelling the call", "session", sid, "id", string(id))
			cancelCall(next, r, id)
		}
	})
}

// requestIDs returns the ids of the JSON-RPC requests (not notifications or
// responses) in a POST body: one message or a batch.
func requestIDs(body []byte) []json.RawMessage {
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	var batch []msg
	if err := json.Unmarshal(body, &batch); err != nil {
		var one msg
		if json.Unmarshal(body, &one) != nil {
			return nil
		}
		batch = []msg{one}
	}
	var ids []json.RawMessage
	for _, m := range batch {
		if m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// cancelCall delivers notifications/cancelled for id to the session of r,
// through the same handler, as the client would have sent it.
func cancelCall(next http.Handler, r *http.Request, id json.RawMessage) {
	note := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"client disconnected"}}`, id)
	// The original request's values (the local address the SDK's Host check
	// reads) are kept; its cancellation is not.
	cr, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), http.MethodPost, r.URL.String(), bytes.NewReader([]byte(note)))
	if err != nil {
		return
	}
	cr.Host, cr.RemoteAddr = r.Host, r.RemoteAddr
	cr.Header.Set(sessionIDHeader, r.Header.Get(sessionIDHeader))
	if v := r.Header.Get(protocolVersionHeader); v != "" {
		cr.Header.Set(protocolVersionHeader, v)
	}
	cr.Header.Set("Content-Type", "application/json")
	cr.Header.Set("Accept", "application/json, text/event-stream")
	next.ServeHTTP(discard{h: http.Header{}}, cr)
}

// discard is a ResponseWriter for the synthesized notification, whose
// 202 reply nobody reads.
type discard struct{ h http.Header }

func (d discard) Header() http.Header       { return d.h }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}
