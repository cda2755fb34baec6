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
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/stdio"
)

// The same bounds as a stdio connection's (internal/stdio), per MCP
// session here: calls in flight, and how long a reply may wait for a
// client that does not read it. Variables for the tests.
var (
	maxSessionCalls = stdio.DefaultCalls
	replyStall      = stdio.DefaultStall
)

// flows counts each MCP session's calls in flight (keyed by session id: the
// Mcp-Session-Id of streamable HTTP, the sessionid of legacy SSE).
type flows struct {
	log *slog.Logger

	mu sync.Mutex
	by map[string]*callFlow
}

type callFlow struct {
	calls   int           // guarded by flows.mu
	posts   int           // POSTs admitted and not yet answered; guarded by flows.mu
	changed chan struct{} // closed and replaced at each change; guarded by flows.mu
	refs    int           // holders (calls, waiting POSTs); guarded by flows.mu
}

func newFlows(log *slog.Logger) *flows { return &flows{log: log, by: map[string]*callFlow{}} }

// ref returns id's flow, held until unref.
func (f *flows) ref(id string) *callFlow {
	c := f.by[id]
	if c == nil {
		c = &callFlow{changed: make(chan struct{})}
		f.by[id] = c
	}
	c.refs++
	return c
}

func (f *flows) unref(id string, c *callFlow) {
	if c.refs--; c.refs == 0 {
		delete(f.by, id)
	}
}

func (c *callFlow) broadcast() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// admit waits, before a POST of session id is read, until the session has
// fewer than maxSessionCalls calls in flight and as many POSTs not yet
// answered: a client past the cap is slowed. After replyStall it gives up:
// false. Admitted, the POST holds its place until done is called. On
// streamable HTTP a call's reply is written by its POST after the call has
// returned, so counting calls alone would let a client that reads no reply
// hold any number of POSTs, each with its reply, stuck in the write.
func (f *flows) admit(ctx context.Context, id string) (done func(), ok bool) {
	f.mu.Lock()
	c := f.ref(id)
	defer f.mu.Unlock()
	timer := time.NewTimer(replyStall)
	defer timer.Stop()
	for c.calls >= maxSessionCalls || c.posts >= maxSessionCalls {
		ch := c.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			f.mu.Lock()
			f.unref(id, c)
			return nil, false
		case <-ctx.Done():
			f.mu.Lock()
			f.unref(id, c)
			return nil, false
		}
		f.mu.Lock()
	}
	c.posts++
	return func() {
		f.mu.Lock()
		c.posts--
		c.broadcast()
		f.unref(id, c)
		f.mu.Unlock()
	}, true
}

// gatePOST holds a POST to an MCP session while it is at its call cap,
// and refuses it with 503 when the cap has not eased within replyStall.
func (f *flows) gatePOST(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(sessionIDHeader)
		if id == "" {
			id = r.URL.Query().Get("sessionid")
		}
		if r.Method != http.MethodPost || id == "" || answersOnly(r) {
			next.ServeHTTP(w, r)
			return
		}
		if done, ok := f.admit(r.Context(), id); ok {
			defer done()
			next.ServeHTTP(w, r)
			return
		}
		if r.Context().Err() != nil {
			return
		}
		f.log.Warn("HTTP client is not taking its replies: call refused", "session", id, "remote", r.RemoteAddr,
			"calls_in_flight", maxSessionCalls, "waited", replyStall)
		w.Header().Set("Retry-After", "1")
		refuse(w, http.StatusServiceUnavailable, fmt.Sprintf("503 Service Unavailable: this MCP session has %d calls in flight and has not taken a reply for %v; read the replies of the calls you made", maxSessionCalls, replyStall))
	})
}

// answerPeek is how much of a POST's body answersOnly reads to tell: an
// elicitation's answer or a notification is small, and a body past it is
// gated like a call.
const answerPeek = 64 << 10

// answersOnly reports whether a POST carries no request, only responses
// (the person's answer to an elicitation) or notifications (a
// cancellation): those pass the session's cap, or calls waiting on the
// person could never end while the cap is full. The part it reads is put
// back in front of the rest of the body.
func answersOnly(r *http.Request) bool {
	head, err := io.ReadAll(io.LimitReader(r.Body, answerPeek+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil || len(head) > answerPeek || len(bytes.TrimSpace(head)) == 0 {
		return false
	}
	if !json.Valid(head) {
		return false // the SDK answers it with a parse error
	}
	return len(requestIDs(head)) == 0
}

// countCall is MCP receiving middleware: it counts a session's calls in
// flight. On a legacy SSE connection, where every reply goes down the one
// GET stream, a call also holds its place until that stream has written
// what came before, so replies cannot pile up behind a client that does
// not read it.
func (f *flows) countCall(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if strings.HasPrefix(method, "notifications/") || ss == nil || ss.ID() == "" {
			return next(ctx, method, req)
		}
		id := ss.ID()
		f.mu.Lock()
		c := f.ref(id)
		c.calls++
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			c.calls--
			c.broadcast()
			f.unref(id, c)
			f.mu.Unlock()
		}()
		res, err := next(ctx, method, req)
		if w, ok := ctx.Value(stallKey{}).(*stallWriter); ok {
			w.waitIdle(ctx)
		}
		return res, err
	}
}

// stallKey carries, in the context of a legacy SSE connection, its GET's
// stallWriter.
type stallKey struct{}

// stallWriter bounds how long one write to the client may wait: each
// write and flush runs under a write deadline of replyStall (cleared after,
// so a kept-alive connection's next request starts without one). A client
// that does not read for that long fails the write; it is logged, and
// stop ends the request (a stream's GET) so its connection closes.
type stallWriter struct {
	http.ResponseWriter
	rc   *http.ResponseController
	r    *http.Request
	log  *slog.Logger
	stop context.CancelFunc

	mu      sync.Mutex
	writing int
	changed chan struct{}
	cut     bool
}

func newStallWriter(w http.ResponseWriter, r *http.Request, log *slog.Logger, stop context.CancelFunc) *stallWriter {
	return &stallWriter{ResponseWriter: w, rc: http.NewResponseController(w), r: r, log: log, stop: stop, changed: make(chan struct{})}
}

func (w *stallWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *stallWriter) Write(p []byte) (int, error) {
	w.begin()
	n, err := w.ResponseWriter.Write(p)
	w.end(err)
	return n, err
}

// FlushError is what http.ResponseController.Flush calls.
func (w *stallWriter) FlushError() error {
	w.begin()
	err := w.rc.Flush()
	w.end(err)
	return err
}

func (w *stallWriter) begin() {
	w.mu.Lock()
	w.writing++
	w.mu.Unlock()
	_ = w.rc.SetWriteDeadline(time.Now().Add(replyStall))
}

func (w *stallWriter) end(err error) {
	_ = w.rc.SetWriteDeadline(time.Time{})
	w.mu.Lock()
	w.writing--
	close(w.changed)
	w.changed = make(chan struct{})
	first := err != nil && errors.Is(err, os.ErrDeadlineExceeded) && !w.cut
	if first {
		w.cut = true
	}
	w.mu.Unlock()
	if first {
		w.log.Warn("HTTP client is not reading its replies: disconnected", "path", w.r.URL.Path, "remote", w.r.RemoteAddr,
			"session", w.r.Header.Get(sessionIDHeader)+w.r.URL.Query().Get("sessionid"), "stalled", replyStall)
		if w.stop != nil {
			w.stop()
		}
	}
}

// waitIdle waits until no write is in progress, or ctx ends.
func (w *stallWriter) waitIdle(ctx context.Context) {
	w.mu.Lock()
	for w.writing > 0 {
		ch := w.changed
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
		w.mu.Lock()
	}
	w.mu.Unlock()
}

// bound applies the call cap and the reply stall to an MCP handler.
func (f *flows) bound(next http.Handler) http.Handler {
	return f.gatePOST(boundReplies(f.log, next))
}

// boundReplies puts every MCP response under a stallWriter; a GET (a
// stream) gets a context of its own that the writer ends on a stall, and
// the SDK derives a legacy SSE connection's context from it, so its calls
// find the writer.
func boundReplies(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(newStallWriter(w, r, log, nil), r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		sw := newStallWriter(w, r, log, cancel)
		next.ServeHTTP(sw, r.WithContext(context.WithValue(ctx, stallKey{}, sw)))
	})
}
