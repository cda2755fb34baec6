package httpserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/web"
)

// A connection's trust, for the connection limits: every connection
// starts unproven and may be closed to make room for a newcomer; once a
// request on it proves its client (trustedRequest), it is kept. The two
// changes race (a request proving itself while the limit picks it) and
// the first compare-and-swap wins, so a proven connection is never closed
// for a newcomer, and a connection being closed is never proven.
const (
	connUnproven int32 = iota
	connProven
	connEvicting
)

// unheardGrace is how long a connection the server has not read from yet
// is spared while others can make room: an honest client sends its
// request at once, and the server reads it within this even under load.
const unheardGrace = time.Second

// Read notes that the server has heard from the connection.
func (c *limitedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.heard.Load() {
		c.heard.Store(true)
	}
	return n, err
}

// prove marks c proven unless it is already being evicted.
func (c *limitedConn) prove() {
	c.trust.CompareAndSwap(connUnproven, connProven)
}

// claim takes an unproven c for eviction; false if it was proven first.
func (c *limitedConn) claim() bool {
	return c.trust.CompareAndSwap(connUnproven, connEvicting)
}

// connKey holds a request's *limitedConn in its context.
type connKey struct{}

// connContexts is the server's ConnContext: connContext's mark of spare
// connections, and the connection itself for trustedRequest.
func connContexts(ctx context.Context, c net.Conn) context.Context {
	ctx = connContext(ctx, c)
	if lc := limited(c); lc != nil {
		ctx = context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// trustedRequest proves a request's connection, so the limits never close
// it for a newcomer:
//   - with a token (or a web-only listener, whose routes need the login
//     cookie), when the request carries the bearer token or a live login
//     cookie: from its headers, whatever its body;
//   - on a loopback server run without a token, where every client has all
//     rights, when the request has fully arrived (headers and body): a
//     client that drips its headers or body stays evictable.
//
// Unproven connections (slow headers, a dripped body, a wrong or missing
// token) are the ones a newcomer at a limit displaces, oldest first.
func trustedRequest(o *Options, next http.Handler) http.Handler {
	open := o.Token == "" && !o.WebOnly
	token := sha256.Sum256([]byte(o.Token))
	carries := func(r *http.Request) bool {
		if o.Logins != nil && web.LoggedIn(r, o.Logins) {
			return true
		}
		scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		if o.Token == "" || !ok || !strings.EqualFold(scheme, "Bearer") {
			return false
		}
		have := sha256.Sum256([]byte(strings.TrimSpace(got)))
		return subtle.ConstantTimeCompare(have[:], token[:]) == 1
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lc, _ := r.Context().Value(connKey{}).(*limitedConn)
		switch {
		case lc == nil:
		case !open:
			if carries(r) {
				lc.prove()
			}
		case r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0:
			lc.prove()
		default:
			r.Body = &provingBody{ReadCloser: r.Body, c: lc}
		}
		next.ServeHTTP(w, r)
	})
}

// provingBody proves its connection once the body has arrived whole.
type provingBody struct {
	io.ReadCloser
	c    *limitedConn
	once sync.Once
}

func (b *provingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.c.prove)
	}
	return n, err
}

// displaceLocked makes room for a newcomer by closing the oldest unproven
// connection of from (nil: of any address) or, for an address (the
// per-address limit), its oldest idle one; it reports whether it did.
func (l *limitListener) displaceLocked(from *ipConns) bool {
	pick := func(ok func(*limitedConn) bool) *limitedConn {
		var victim *limitedConn
		look := func(n *ipConns) {
			for c := range n.conns {
				if ok(c) && (victim == nil || c.seq < victim.seq) {
					victim = c
				}
			}
		}
		if from != nil {
			look(from)
		} else {
			for _, n := range l.byIP {
				look(n)
			}
		}
		return victim
	}
	now := time.Now()
	for _, ok := range []func(*limitedConn) bool{
		// First those the server has heard from (their request is slow
		// or unauthenticated) or that said nothing for unheardGrace: a
		// newcomer the server has not read yet most likely holds a whole
		// request, and would prove itself at its first read.
		func(c *limitedConn) bool {
			return c.trust.Load() == connUnproven && (c.heard.Load() || now.Sub(c.at) >= unheardGrace)
		},
		func(c *limitedConn) bool { return c.trust.Load() == connUnproven },
	} {
		for {
			victim := pick(ok)
			if victim == nil {
				break
			}
			if victim.claim() {
				l.dropLocked(victim)
				return true
			}
			// Proven meanwhile: look again.
		}
	}
	if from == nil {
		return false
	}
	if victim := pick(func(c *limitedConn) bool { return c.idle.Load() }); victim != nil {
		l.dropLocked(victim)
		return true
	}
	return false
}
