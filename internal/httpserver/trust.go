package httpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"io"
	"net"
	"net/http"
	"strconv"
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

// unheardGrace is how long a connection that has sent nothing yet is
// spared while others can make room: an honest client sends its request
// at once, and the server reads it within this even under load.
const unheardGrace = time.Second

// Read notes that the server has heard from the connection, and proves it
// at once when its first bytes hold a whole request that proves it (see
// firstReadProof): the time net/http then takes to reach the handler is no
// window in which a newcomer could close it.
func (c *limitedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.read.Load() {
		c.read.Store(true)
		c.noteFirst(p[:n])
	}
	return n, err
}

// noteFirst proves c if its first bytes do, and marks it heard if it sent
// any.
func (c *limitedConn) noteFirst(b []byte) {
	if len(b) == 0 || c.l.encrypted {
		return
	}
	if c.l.proves != nil && c.trust.Load() == connUnproven && c.l.proves(b) {
		c.prove()
	}
	c.heard.Store(true)
}

// firstReadProof is what proves a connection from the first bytes read
// from it, the rule of trustedRequest applied to a request that arrived in
// one piece (as a client's request usually does): with a token, its
// headers carry it; without a token (and not web-only), the request is
// whole, headers and Content-Length body. Anything else waits for the
// handler (a cookie, a request split over reads, TLS).
func firstReadProof(o *Options) func([]byte) bool {
	if o.Token == "" && o.WebOnly {
		return nil
	}
	token := sha256.Sum256([]byte(o.Token))
	return func(b []byte) bool {
		head, rest, ok := bytes.Cut(b, []byte("\r\n\r\n"))
		if !ok {
			return false
		}
		lines := bytes.Split(head, []byte("\r\n"))[1:] // after the request line
		if o.Token == "" {
			for _, l := range lines {
				k, v, _ := bytes.Cut(l, []byte(":"))
				switch {
				case bytes.EqualFold(bytes.TrimSpace(k), []byte("Transfer-Encoding")):
					return false
				case bytes.EqualFold(bytes.TrimSpace(k), []byte("Content-Length")):
					n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
					return err == nil && len(rest) >= n
				}
			}
			return true
		}
		for _, l := range lines {
			k, v, _ := bytes.Cut(l, []byte(":"))
			if !bytes.EqualFold(bytes.TrimSpace(k), []byte("Authorization")) {
				continue
			}
			scheme, got, ok := strings.Cut(strings.TrimSpace(string(v)), " ")
			have := sha256.Sum256([]byte(strings.TrimSpace(got)))
			return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare(have[:], token[:]) == 1
		}
		return false
	}
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
		// First those that sent something that did not prove them (a
		// slow or unauthenticated request) or nothing for unheardGrace:
		// one that has sent nothing yet most likely has its request on
		// the way, and would prove itself at its first read.
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
				l.noteDisplacedLocked(victim)
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

// noteDisplacedLocked logs unproven connections closed for newcomers at
// most once per refusalLogEvery, with how many there were: a flood of
// slow or unauthenticated peers shows in the log without flooding it.
func (l *limitListener) noteDisplacedLocked(victim *limitedConn) {
	l.displaceUnnoted++
	if time.Since(l.displaceLogged) < refusalLogEvery {
		return
	}
	l.log.Warn("closing HTTP connections that showed no token to make room at a limit (slow or unauthenticated clients)",
		"closed", l.displaceUnnoted, "latest_from", victim.ip, "age", time.Since(victim.at).Round(time.Millisecond))
	l.displaceLogged, l.displaceUnnoted = time.Now(), 0
}
