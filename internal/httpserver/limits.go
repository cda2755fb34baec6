package httpserver

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for the connection limits.
const (
	DefaultMaxConns      = 512
	DefaultMaxConnsPerIP = 64
	// DefaultFDReserve is how many file descriptors are kept free of HTTP
	// connections for sessions (a PTY, pipes, the start itself), the store
	// and logs; at most half the descriptor limit.
	DefaultFDReserve = 256
)

// Connections over a limit are not dropped blind: a few "spare" ones are
// served /healthz (so a supervisor still sees the server under a flood)
// and a 503 for anything else, and live at most spareLife. Beyond those
// they are closed at once.
const (
	spareConns      = 16
	spareConnsPerIP = 2
	spareLife       = 2 * time.Second
	refusalLogEvery = 10 * time.Second
)

// limitListener caps the connections open at once, per client address and
// in total, from the moment they are accepted (before any TLS handshake or
// request), so no client can hold more than its share of descriptors.
//
// At a limit, a newcomer first takes the place of the oldest unproven
// connection (trust.go: no request on it has shown the token or a login
// cookie, or, without a token, none has fully arrived) of its own address
// (per-address limit) or of any (total), so slow or unauthenticated peers
// cannot lock out a client with credentials, even from the same address
// (every local client is 127.0.0.1). Next, at the per-address limit, the
// address's oldest idle connection goes; at the total, the busiest
// address's oldest idle one, so a flood from a few addresses cannot lock
// out everyone else. Closing an idle connection is ordinary HTTP: clients
// open a new one. Only proven connections with a request in progress are
// never closed for a newcomer.
type limitListener struct {
	net.Listener
	total, perIP int
	log          *slog.Logger

	// proves reports whether the first bytes read from a connection prove
	// it (trust.go); set before serving, nil for none.
	proves func([]byte) bool
	// encrypted: TLS sits on top, so a connection's first bytes are its
	// handshake, which neither proves it nor shows it stalling.
	encrypted bool

	refused atomic.Int64 // connections over a limit, since the start
	evicted atomic.Int64 // connections closed for a newcomer

	mu      sync.Mutex
	seq     uint64              // accept order; guarded by mu
	open    int                 // admitted connections open; guarded by mu
	spare   int                 // spare connections open; guarded by mu
	byIP    map[string]*ipConns // guarded by mu; entries with no connections are removed
	logged  time.Time           // last refusal log; guarded by mu
	unnoted int                 // refusals since then; guarded by mu
	// The same for unproven connections closed for newcomers (trust.go).
	displaceLogged  time.Time // guarded by mu
	displaceUnnoted int       // guarded by mu
}

// ipConns are one address's connections; guarded by limitListener.mu.
type ipConns struct {
	open, spare int
	conns       map[*limitedConn]bool // the admitted ones
}

func newLimitListener(ln net.Listener, total, perIP int, log *slog.Logger) *limitListener {
	return &limitListener{Listener: ln, total: total, perIP: perIP, log: log, byIP: map[string]*ipConns{}}
}

// Accept returns the next connection within the limits or a spare one;
// connections beyond both are closed here, never returned.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		limitUnsent(c)
		if lc := l.admit(c, peek(c)); lc != nil {
			return lc, nil
		}
		_ = c.Close()
	}
}

// admit counts c in, making room if it must; first is what c had sent
// when accepted (trust.go: it may prove c at once).
func (l *limitListener) admit(c net.Conn, first []byte) net.Conn {
	ip := remoteIP(c)
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.byIP[ip]
	if n == nil {
		n = &ipConns{conns: map[*limitedConn]bool{}}
		l.byIP[ip] = n
	}
	room := n.open < l.perIP && l.open < l.total
	switch {
	case room:
	case n.open >= l.perIP:
		room = l.displaceLocked(n)
	default:
		room = l.displaceLocked(nil) || l.evictLocked(n.open)
	}
	if room {
		l.byIP[ip] = n // a displaced last connection of ip removed it
		l.seq++
		lc := &limitedConn{Conn: c, l: l, ip: ip, seq: l.seq, at: time.Now()}
		lc.idle.Store(true)
		lc.noteFirst(first)
		l.open++
		n.open++
		n.conns[lc] = true
		return lc
	}
	l.refused.Add(1)
	why := fmt.Sprintf("%d connections from %s (limit %d)", n.open, ip, l.perIP)
	if l.open >= l.total {
		why = fmt.Sprintf("%d connections in total (limit %d)", l.open, l.total)
	}
	l.noteRefusalLocked(ip, why)
	if l.spare < spareConns && n.spare < spareConnsPerIP {
		l.spare++
		n.spare++
		until := time.Now().Add(spareLife)
		_ = c.SetDeadline(until)
		return &limitedConn{Conn: c, l: l, ip: ip, spare: why, until: until}
	}
	if n.open == 0 && n.spare == 0 {
		delete(l.byIP, ip)
	}
	return nil
}

// evictLocked closes the oldest idle connection of the address holding the
// most, if it holds more than have+1 (so two addresses never take turns
// evicting each other), and reports whether it did.
func (l *limitListener) evictLocked(have int) bool {
	var busiest *ipConns
	for _, n := range l.byIP {
		if n.open > have+1 && (busiest == nil || n.open > busiest.open) {
			busiest = n
		}
	}
	if busiest == nil {
		return false
	}
	var victim *limitedConn
	for c := range busiest.conns {
		if c.idle.Load() && (victim == nil || c.seq < victim.seq) {
			victim = c
		}
	}
	if victim == nil {
		return false
	}
	l.dropLocked(victim)
	return true
}

// dropLocked frees victim's place and closes it for a newcomer.
func (l *limitListener) dropLocked(victim *limitedConn) {
	victim.once.Do(func() { l.releaseLocked(victim) })
	_ = victim.Conn.Close() // its server goroutine sees the error and ends
	l.evicted.Add(1)
}

// noteRefusalLocked logs refusals at most once per refusalLogEvery, with
// how many there were, so a flood cannot flood the log too.
func (l *limitListener) noteRefusalLocked(ip, why string) {
	l.unnoted++
	if time.Since(l.logged) < refusalLogEvery {
		return
	}
	l.log.Warn("refusing HTTP connections over the limit (-http-max-conns, -http-max-conns-per-ip)",
		"refused", l.unnoted, "latest_from", ip, "why", why)
	l.logged, l.unnoted = time.Now(), 0
}

func (l *limitListener) releaseLocked(c *limitedConn) {
	n := l.byIP[c.ip]
	if c.spare != "" {
		l.spare--
		n.spare--
	} else {
		l.open--
		n.open--
		delete(n.conns, c)
	}
	if n.open == 0 && n.spare == 0 {
		delete(l.byIP, c.ip)
	}
}

// connState tracks which connections are idle (no request in progress),
// for eviction.
func connState(c net.Conn, st http.ConnState) {
	if lc := limited(c); lc != nil {
		lc.idle.Store(st == http.StateNew || st == http.StateIdle)
	}
}

// counts reports the admitted connections open and the limit.
func (l *limitListener) counts() (open, limit int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open, l.total
}

func remoteIP(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	host, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		return c.RemoteAddr().String()
	}
	return host
}

// limitedConn is a counted connection; closing it frees its place.
type limitedConn struct {
	net.Conn
	l     *limitListener
	ip    string
	seq   uint64       // accept order
	spare string       // why it is over the limit; "" for an admitted one
	until time.Time    // a spare connection's end: no deadline may pass it
	idle  atomic.Bool  // no request in progress (http.ConnState)
	trust atomic.Int32 // connUnproven, connProven or connEvicting (trust.go)
	heard atomic.Bool  // it has sent bytes: seen at accept or read (trust.go)
	read  atomic.Bool  // the server has read from it (trust.go)
	at    time.Time    // accepted
	once  sync.Once    // releases its place
}

// Close frees the place once. once.Do runs only under l.mu, here and in
// dropLocked: taking l.mu inside it would deadlock with an eviction that
// holds l.mu and waits on the same once.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	c.once.Do(func() { c.l.releaseLocked(c) })
	c.l.mu.Unlock()
	return err
}

// CloseWrite keeps the half-close net/http uses to end a connection
// gracefully.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *limitedConn) clamp(t time.Time) time.Time {
	if c.spare != "" && (t.IsZero() || t.After(c.until)) {
		return c.until
	}
	return t
}

func (c *limitedConn) SetDeadline(t time.Time) error { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *limitedConn) SetReadDeadline(t time.Time) error {
	return c.Conn.SetReadDeadline(c.clamp(t))
}
func (c *limitedConn) SetWriteDeadline(t time.Time) error {
	return c.Conn.SetWriteDeadline(c.clamp(t))
}

// spareKey marks, in a request's context, a connection over the limits;
// its value says which limit.
type spareKey struct{}

// connContext marks the requests of spare connections.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if lc := limited(c); lc != nil && lc.spare != "" {
		return context.WithValue(ctx, spareKey{}, lc.spare)
	}
	return ctx
}

// limited finds the limitedConn under what net/http was given.
func limited(c net.Conn) *limitedConn {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	lc, _ := c.(*limitedConn)
	return lc
}

// overLimit answers requests on spare connections: /healthz is served,
// anything else gets 503 with Retry-After; the connection then closes.
func overLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		why, ok := r.Context().Value(spareKey{}).(string)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet && r.URL.Path == "/healthz" {
			w.Header().Set("Connection", "close")
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Retry-After", "1")
		refuse(w, http.StatusServiceUnavailable, "503 Service Unavailable: agentty has "+why+"; retry in a moment, or close connections you do not use")
	})
}
