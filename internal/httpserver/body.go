package httpserver

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// DefaultBodyTimeout bounds how long a client may take to send a request
// body: 4 MiB (the MCP handler's cap) in that time needs about 140 KB/s.
const DefaultBodyTimeout = 30 * time.Second

// refuseDrain is how long a refused request's connection may still deliver
// the rest of its body before it is closed. An honest client has sent it
// already; reading it lets the refusal reach the client instead of being
// lost to a reset.
const refuseDrain = 500 * time.Millisecond

// bodyDeadline gives every request with a body timeout to deliver it, from
// the end of its headers. net/http bounds the headers (ReadHeaderTimeout)
// but not the body, and it reads what a handler left unread before it
// answers, so without this a client that declares a body and never sends
// it holds the connection, and a goroutine and a descriptor, forever.
//
// The deadline is cleared when the body ends: net/http then watches the
// connection for the client going away, and a deadline left behind would
// look like that and cancel a long call. A request without a body (the
// SSE GET, a stream resumption) gets no deadline at all.
func bodyDeadline(timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(timeout)) != nil {
			next.ServeHTTP(w, r) // not HTTP/1 (no such connection to bound)
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody clears the connection's read deadline once the body has
// been read to its end.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	once sync.Once
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(func() { _ = b.rc.SetReadDeadline(time.Time{}) })
	}
	return n, err
}

// refuse answers a request that will not be served, without reading its
// body: it asks net/http to close the connection after the answer (else it
// would read the whole unread body first, to reuse the connection) and
// gives the rest of the body refuseDrain to arrive.
func refuse(w http.ResponseWriter, code int, msg string) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(refuseDrain))
	w.Header().Set("Connection", "close")
	http.Error(w, msg, code)
}
