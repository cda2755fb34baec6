package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Lifetimes of what Logins hands out.
const (
	// LoginTTL is how long a login URL can be opened: long enough to copy
	// it from a terminal into a browser, short enough that one left in a
	// scrollback is worthless.
	LoginTTL = 2 * time.Minute
	// CookieTTL is how long a browser stays logged in.
	CookieTTL = 12 * time.Hour
)

// Caps on what Logins keeps, so nobody can grow its maps without bound:
// the oldest entry goes when a new one would pass the cap.
const (
	maxPending  = 64
	maxSessions = 256
)

// Logins holds the one-time login tokens agentty web hands out and the
// browser sessions they opened. Tokens and cookie values are 256 random
// bits; only their SHA-256 is kept, so a memory dump or a timing
// difference in a map lookup tells nothing usable. One Logins is shared
// by every front end of one server (the HTTP listener that redeems the
// tokens and the daemon socket that issues them).
type Logins struct {
	now func() time.Time // time.Now; tests move the clock

	mu       sync.Mutex
	pending  map[[32]byte]time.Time // login token hash -> expiry; guarded by mu
	sessions map[[32]byte]time.Time // cookie value hash -> expiry; guarded by mu
	base     string                 // URL of the front end serving the page; guarded by mu
}

// Serving records the URL (scheme://host:port) of the front end that
// serves the page, for the login URLs Handler hands out.
func (l *Logins) Serving(base string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.base = base
}

// Handler answers LoginAPIPath for a front end whose callers are trusted
// already (the daemon's unix socket, which checked the peer's uid): a
// LoginReply for the page's front end, or 503 while none serves it.
func (l *Logins) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		base := l.base
		l.mu.Unlock()
		if base == "" {
			writeError(w, http.StatusServiceUnavailable, "no web view is being served: run agentty web, which opens it")
			return
		}
		issueLogin(w, l, base)
	})
}

// NewLogin issues a login token and returns its login URL on the front
// end at base (scheme://host:port).
func (l *Logins) NewLogin(base string) LoginReply {
	tok, exp := l.Issue()
	path := LoginPath + "?t=" + tok
	return LoginReply{URL: strings.TrimSuffix(base, "/") + path, Path: path, Expires: exp}
}

// NewLogins returns an empty Logins.
func NewLogins() *Logins {
	return &Logins{now: time.Now, pending: map[[32]byte]time.Time{}, sessions: map[[32]byte]time.Time{}}
}

// Issue makes a login token that opens one browser session within
// LoginTTL, once.
func (l *Logins) Issue() (token string, expires time.Time) {
	token = randomToken()
	l.mu.Lock()
	defer l.mu.Unlock()
	expires = l.now().Add(LoginTTL)
	put(l.pending, sha256.Sum256([]byte(token)), expires, maxPending, l.now())
	return token, expires
}

// Redeem spends a login token: if it is known and unexpired it is removed
// and a new cookie value, good for CookieTTL, is returned.
func (l *Logins) Redeem(token string) (cookie string, ok bool) {
	h := sha256.Sum256([]byte(token))
	l.mu.Lock()
	defer l.mu.Unlock()
	exp, found := l.pending[h]
	delete(l.pending, h)
	now := l.now()
	if !found || !now.Before(exp) {
		return "", false
	}
	return l.openLocked(now), true
}

// Open starts a browser session without a login token, for a client that
// proved itself otherwise (the server's bearer token), and returns its
// cookie value.
func (l *Logins) Open() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.openLocked(l.now())
}

func (l *Logins) openLocked(now time.Time) string {
	cookie := randomToken()
	put(l.sessions, sha256.Sum256([]byte(cookie)), now.Add(CookieTTL), maxSessions, now)
	return cookie
}

// Valid reports whether cookie is an unexpired session's value.
func (l *Logins) Valid(cookie string) bool {
	if cookie == "" {
		return false
	}
	h := sha256.Sum256([]byte(cookie))
	l.mu.Lock()
	defer l.mu.Unlock()
	exp, ok := l.sessions[h]
	return ok && l.now().Before(exp)
}

// put stores k with its expiry, first dropping expired entries and, at the
// cap, the one that expires soonest (the oldest: every entry of a map has
// the same lifetime).
func put(m map[[32]byte]time.Time, k [32]byte, exp time.Time, capacity int, now time.Time) {
	var oldest [32]byte
	var oldestExp time.Time
	for h, e := range m {
		if !now.Before(e) {
			delete(m, h)
			continue
		}
		if oldestExp.IsZero() || e.Before(oldestExp) {
			oldest, oldestExp = h, e
		}
	}
	if len(m) >= capacity {
		delete(m, oldest)
	}
	m[k] = exp
}

// randomToken is 256 bits from the system's random source, in hex.
func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it crashes the program instead)
	return hex.EncodeToString(b[:])
}
