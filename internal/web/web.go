// Package web is agentty's live web view: a page at / that lists the
// sessions and shows each one live (a PTY session in xterm.js fed by the
// console API's WebSocket stream, a pipe session as a log with stdout and
// stderr marked, a past session's transcript with search), the one-time
// login that lets a browser in, and the authentication in front of the
// person's console API under /v1/.
//
// It speaks no MCP and knows no session engine: the console API is an
// http.Handler it is given. The front end that mounts Handler must check
// the Origin header first (internal/httpserver does), so that a page on a
// foreign site can neither open the stream nor post to the API; the
// cookie Handler sets is SameSite=Strict and HttpOnly on top of that.
package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/agentty/agentty/internal/console/api"
)

//go:embed assets
var assets embed.FS

// LoginPath is the route a login URL points at: LoginPath?t=TOKEN.
const LoginPath = "/login"

// LoginAPIPath is the console route that issues a login URL (POST).
const LoginAPIPath = api.WebLoginPath

// Options configure Handler.
type Options struct {
	// Console is the person's console API, served under /v1/ to a browser
	// with the login cookie or a client with the bearer token (nil: 503).
	Console http.Handler
	// Logins issues and redeems login tokens (nil: a new one). Share one
	// between the front ends of a server so a token issued by one is
	// redeemed by the other.
	Logins *Logins
	// Token is the server's bearer token ("": the server is loopback-only
	// and has none). A request carrying it passes as a logged-in browser
	// does.
	Token string
	// OpenLogin lets a request without a bearer token and without an
	// Origin (not a browser) ask for a login URL on a server without a
	// token: right where every local process can reach /mcp as well
	// (serve -http on loopback), wrong where MCP is behind a uid check
	// (the daemon, whose socket hands out login URLs instead).
	OpenLogin bool
	// Secure marks the cookie Secure (the server speaks TLS).
	Secure bool
	// BaseURL is the server's URL (scheme://host:port) for the login URLs
	// LoginAPIPath returns ("": from the request's Host).
	BaseURL string
	Logger  *slog.Logger
}

// Handler serves the page at /, its assets, LoginPath, and the console
// API under /v1/ behind the login cookie or bearer token. LoginAPIPath
// answers a client with the bearer token, or, with OpenLogin on a server
// without a token, a request that carries no Origin (no browser).
func Handler(o Options) http.Handler {
	if o.Logins == nil {
		o.Logins = NewLogins()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	h := &handler{o: o, token: tokenMatcher(o.Token)}
	static, _ := fs.Sub(assets, "assets")
	mux := http.NewServeMux()
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", noSniff(http.FileServerFS(static))))
	mux.HandleFunc("GET "+LoginPath, h.login)
	mux.HandleFunc("POST "+LoginAPIPath, h.issue)
	mux.HandleFunc("GET /{$}", h.page)
	mux.Handle("/v1/", h.authed(h.console()))
	return mux
}

type handler struct {
	o     Options
	token func(string) bool // reports whether a bearer token is the server's
}

// cookieName is per port: browsers send a host's cookies to every port on
// it, and two agentty servers on one machine must not log each other out.
func cookieName(r *http.Request) string {
	_, port, err := net.SplitHostPort(r.Host)
	if err != nil || port == "" {
		port = "default"
	}
	return "agentty_web_" + port
}

// page serves the single page to a logged-in browser; anyone else gets 401
// and how to log in.
func (h *handler) page(w http.ResponseWriter, r *http.Request) {
	if !h.allowed(r) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(loggedOutPage))
		return
	}
	b, _ := assets.ReadFile("assets/index.html")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b)
}

const loggedOutPage = `<!doctype html><meta charset="utf-8"><title>agentty: log in</title>
<p>401: this browser is not logged in to agentty.</p>
<p>Run <code>agentty web</code> (or <code>agentty web -http URL</code> for a server started with
<code>serve -http</code>) and open the one-time login URL it prints.</p>`

// login redeems a login token: it sets the session cookie and sends the
// browser to /, without the token in the address bar.
//
// The token may also be the server's bearer token: the URL serve -http
// prints at start, which works as long as the token does (as Jupyter's).
func (h *handler) login(w http.ResponseWriter, r *http.Request) {
	t := r.URL.Query().Get("t")
	cookie, ok := h.o.Logins.Redeem(t)
	if !ok && h.token(t) {
		cookie, ok = h.o.Logins.Open(), true
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if !ok {
		h.o.Logger.Warn("web login refused: unknown, used or expired login token", "remote", r.RemoteAddr)
		http.Error(w, "401 Unauthorized: this login URL is unknown, was used already or expired; run agentty web for a new one", http.StatusUnauthorized)
		return
	}
	h.o.Logger.Info("web login", "remote", r.RemoteAddr)
	http.SetCookie(w, &http.Cookie{Name: cookieName(r), Value: cookie, Path: "/", MaxAge: int(CookieTTL / time.Second),
		HttpOnly: true, Secure: h.o.Secure, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// allowed reports whether r carries a live login cookie or the bearer
// token.
func (h *handler) allowed(r *http.Request) bool {
	if LoggedIn(r, h.o.Logins) {
		return true
	}
	scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && h.token(strings.TrimSpace(got))
}

// LoggedIn reports whether r carries a live login cookie of l.
func LoggedIn(r *http.Request, l *Logins) bool {
	c, err := r.Cookie(cookieName(r))
	return err == nil && l.Valid(c.Value)
}

// authed answers 401 unless the request is allowed.
func (h *handler) authed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.allowed(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="agentty"`)
			writeError(w, http.StatusUnauthorized, "not logged in: open the login URL agentty web prints, or send 'Authorization: Bearer <token>'")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *handler) console() http.Handler {
	if h.o.Console != nil {
		return h.o.Console
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusServiceUnavailable, "this agentty server has no console API")
	})
}

// LoginReply is what LoginAPIPath answers.
type LoginReply = api.WebLogin

// issue answers LoginAPIPath (see Handler for who may call it).
func (h *handler) issue(w http.ResponseWriter, r *http.Request) {
	bearer := r.Header.Get("Authorization") != ""
	switch {
	case bearer && !h.allowed(r):
		writeError(w, http.StatusUnauthorized, "the bearer token is wrong; use the token this agentty server was started with")
		return
	case !bearer && h.o.Token != "":
		writeError(w, http.StatusUnauthorized, "this agentty server has a token: send 'Authorization: Bearer <token>' (agentty web -token-file FILE, or $AGENTTY_TOKEN)")
		return
	case !bearer && !h.o.OpenLogin:
		writeError(w, http.StatusUnauthorized, "login URLs are handed out by the agentty daemon's socket here: run agentty web without -http")
		return
	case !bearer && r.Header.Get("Origin") != "":
		writeError(w, http.StatusForbidden, "a browser may not ask for a login URL; run agentty web")
		return
	}
	base := "http://" + r.Host
	if h.o.Secure {
		base = "https://" + r.Host
	}
	if h.o.BaseURL != "" {
		base = h.o.BaseURL
	}
	issueLogin(w, h.o.Logins, base)
}

// issueLogin issues a login token from l and answers with a LoginReply
// whose URL starts with base (scheme://host:port).
func issueLogin(w http.ResponseWriter, l *Logins, base string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(l.NewLogin(base))
}

// tokenMatcher compares in constant time (both sides hashed first, so
// neither length nor content leaks); no token matches nothing.
func tokenMatcher(token string) func(string) bool {
	if token == "" {
		return func(string) bool { return false }
	}
	want := sha256.Sum256([]byte(token))
	return func(got string) bool {
		have := sha256.Sum256([]byte(got))
		return subtle.ConstantTimeCompare(have[:], want[:]) == 1
	}
}

// writeError answers in the console API's error shape.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func noSniff(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}
