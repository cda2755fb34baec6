// Package httpserver serves agentty's MCP server to remote clients over
// HTTP: MCP streamable HTTP at /mcp (the current and older protocol
// revisions, through the go-sdk handler), the legacy HTTP+SSE transport at
// /sse, /healthz for supervisors, and the person's live web view at / with
// the console API under /v1/ (internal/web).
//
// It is safe by default: it refuses to listen beyond loopback unless a
// bearer token is configured, checks the token on every MCP route in
// constant time, rejects foreign Origin headers and, on every route,
// non-loopback Host headers on loopback connections, and can serve TLS.
// It bounds what a hostile client can hold: a refusal is decided from the
// headers and closes the connection, a body must arrive within
// BodyTimeout, and connections are capped per address and in total below
// the descriptor limit, so sessions can always start (limits.go).
//
// Sessions belong to the agentty server, not to an HTTP connection: every
// client talks to the same *mcp.Server and so the same session manager. A
// dropped connection ends only that client's in-flight waits.
package httpserver

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/agentty/agentty/internal/hostcheck"
	"github.com/agentty/agentty/internal/peers"
	"github.com/agentty/agentty/internal/web"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for Options.
const (
	DefaultAddr          = "127.0.0.1:7777"
	DefaultSessionIdle   = 30 * time.Minute
	DefaultShutdownGrace = 3 * time.Second
)

// Sentinel errors of New, for errors.Is.
var (
	// ErrInsecureBind: a non-loopback address was asked for without a token.
	ErrInsecureBind = errors.New("refusing to listen on a non-loopback address without a token")
	// ErrTLSConfig: the TLS certificate and key are incomplete or unreadable.
	ErrTLSConfig = errors.New("bad TLS configuration")
)

// Options configure the HTTP server; nil means defaults.
type Options struct {
	// Addr is host:port to listen on (DefaultAddr if empty; port 0 picks one).
	Addr string
	// Token, if set, is the bearer token every MCP request must carry. It is
	// required when Addr is not a loopback address.
	Token string
	// TLSCert and TLSKey are PEM files; both or neither.
	TLSCert, TLSKey string
	// AllowedOrigins are browser origins (scheme://host[:port]) accepted
	// besides loopback ones. Requests without an Origin header (every
	// non-browser client) are not affected.
	AllowedOrigins []string
	// SessionIdle closes an MCP connection (not agentty's sessions) that sent
	// nothing for this long; 0 means DefaultSessionIdle, negative never.
	SessionIdle time.Duration
	// ShutdownGrace bounds how long Serve waits for requests to finish after
	// its context ends (DefaultShutdownGrace if 0).
	ShutdownGrace time.Duration
	// BodyTimeout bounds how long a client may take to send a request's
	// body (DefaultBodyTimeout if 0); the headers have 10 s.
	BodyTimeout time.Duration
	// MaxConns and MaxConnsPerIP cap the connections open at once in total
	// and from one client address (DefaultMaxConns, DefaultMaxConnsPerIP if
	// 0). MaxConns is lowered if the descriptor limit could not also hold
	// DefaultFDReserve for sessions.
	MaxConns, MaxConnsPerIP int
	Logger                  *slog.Logger
	// Console is the person's console API, mounted under /v1/ behind the
	// web login cookie or the token (nil: those routes answer 503). The
	// web view's page is served at / either way.
	Console http.Handler
	// WebOnly serves the web view and /healthz but not MCP (/mcp, /sse),
	// and hands out login URLs only to clients with the token: a daemon's
	// -web listener, whose MCP clients and login requests come over its
	// uid-checked socket.
	WebOnly bool
	// Logins issues and redeems the web view's one-time login URLs (nil:
	// the server's own). A daemon shares one with its socket, which issues
	// them with Logins.Handler; New records the server's URL in it.
	Logins *web.Logins
	// Guard refuses connections from processes of sessions held in a
	// sandbox or under limits (nil: no check).
	Guard *peers.Guard
}

// Server is a listening HTTP front end for one *mcp.Server.
type Server struct {
	mcp  *mcp.Server
	opts Options
	log  *slog.Logger
	ln   net.Listener
	lim  *limitListener // under ln (TLS sits on top)
	http *http.Server

	// base is the parent of every request's context; cancelled at shutdown
	// so hanging SSE streams and waits end instead of holding Shutdown.
	base       context.Context
	cancelBase context.CancelFunc

	inFlight atomic.Int64 // tool calls being handled now, for /healthz
}

// Check reports what is wrong with o without listening: a non-loopback
// address without a token (ErrInsecureBind), an incomplete or unreadable
// TLS pair (ErrTLSConfig), a malformed address or allowed origin. New runs
// it too; callers run it early to refuse a bad start before doing anything.
func (o *Options) Check() error {
	_, _, err := o.check()
	return err
}

func (o *Options) check() (originSet, *tls.Config, error) {
	addr := cmp.Or(o.Addr, DefaultAddr)
	loop, err := isLoopbackAddr(addr)
	if err != nil {
		return nil, nil, err
	}
	if !loop && o.Token == "" {
		return nil, nil, fmt.Errorf("%w: %s is reachable from other machines; set a token (-token-file or AGENTTY_TOKEN) or listen on 127.0.0.1", ErrInsecureBind, addr)
	}
	origins, err := parseOrigins(o.AllowedOrigins)
	if err != nil {
		return nil, nil, err
	}
	if o.TLSCert == "" && o.TLSKey == "" {
		return origins, nil, nil
	}
	if o.TLSCert == "" || o.TLSKey == "" {
		return nil, nil, fmt.Errorf("%w: give both a certificate and a key", ErrTLSConfig)
	}
	cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrTLSConfig, err)
	}
	return origins, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// New checks o, listens on o.Addr and returns a Server ready to Serve. The
// listener is open when New returns, so Addr reports the real port.
func New(srv *mcp.Server, o *Options) (*Server, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.Addr == "" {
		opts.Addr = DefaultAddr
	}
	if opts.SessionIdle == 0 {
		opts.SessionIdle = DefaultSessionIdle
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = DefaultShutdownGrace
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.MaxConnsPerIP <= 0 {
		opts.MaxConnsPerIP = DefaultMaxConnsPerIP
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	origins, tlsConf, err := opts.check()
	if err != nil {
		return nil, err
	}
	tcp, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", opts.Addr, err)
	}
	door := "http port"
	if opts.WebOnly {
		door = "web port"
	}
	// Below the connection limits: a refused connection never counts.
	tcp = opts.Guard.Listener(door, tcp)
	total, nofile := connBudget(opts.MaxConns)
	if total < opts.MaxConns {
		log.Warn("fewer HTTP connections allowed than asked: the open-files limit must keep descriptors for sessions; raise it (ulimit -n) for more",
			"max_conns", total, "asked", opts.MaxConns, "nofile", nofile)
	}
	lim := newLimitListener(tcp, total, min(opts.MaxConnsPerIP, total), log)
	lim.proves, lim.encrypted = firstReadProof(&opts), tlsConf != nil
	var ln net.Listener = lim
	if tlsConf != nil {
		ln = tls.NewListener(ln, tlsConf)
	}
	s := &Server{mcp: srv, opts: opts, log: log, ln: ln, lim: lim}
	if s.opts.Logins == nil {
		s.opts.Logins = web.NewLogins()
	}
	s.opts.Logins.Serving(s.URL())
	s.base, s.cancelBase = context.WithCancel(context.Background())
	srv.AddReceivingMiddleware(s.bindCall)
	s.http = &http.Server{
		Handler:           overLimit(hostcheck.Guard(trustedRequest(&s.opts, bodyDeadline(opts.BodyTimeout, s.handler(origins))))),
		BaseContext:       func(net.Listener) context.Context { return s.base },
		ConnContext:       connContexts,
		ConnState:         connState,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// URL is the base URL of the server (http or https, no path).
func (s *Server) URL() string {
	scheme := "http"
	if s.opts.TLSCert != "" {
		scheme = "https"
	}
	return scheme + "://" + s.ln.Addr().String()
}

// handler routes /mcp, /sse, /healthz, and everything else to the web view
// (the page at /, the console API under /v1/). Every route has passed the
// Host check (hostcheck.Guard, 403) already; then every MCP route is
// checked in this order: Origin (403), bearer token (401), then the SDK's
// own Host check and protocol handling; the web view's routes: Origin
// (403), then the login cookie or bearer token (401).
func (s *Server) handler(origins originSet) http.Handler {
	getServer := func(*http.Request) *mcp.Server { return s.mcp }
	// go-sdk v1.8.0 serves 2026-07-28 only from a stateless handler and the
	// session-based revisions only from a stateful one, so /mcp holds one of
	// each and routes by the request's protocol version header.
	stateful := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger:         s.log,
		SessionTimeout: max(s.opts.SessionIdle, 0),
	})
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger:    s.log,
		Stateless: true,
		// The POST is the whole call, so a dropped POST cancels it.
		PropagateRequestCancellation: true,
	})
	streamable := byRevision(stateless, cancelOnDisconnect(stateful, s.log))
	sse := mcp.NewSSEHandler(getServer, nil)
	guard := func(h http.Handler) http.Handler {
		return checkOrigin(origins, requireToken(s.opts.Token, stampRemote(h)))
	}
	fl := newFlows(s.log) // calls in flight per session, replies a client does not read
	s.mcp.AddReceivingMiddleware(fl.countCall)
	mux := http.NewServeMux()
	if !s.opts.WebOnly {
		mux.Handle("/mcp", guard(fl.bound(streamable)))
		mux.Handle("/sse", guard(markStream(fl.bound(sse))))
	}
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("/", checkOrigin(origins, web.Handler(web.Options{Console: s.opts.Console, Logins: s.opts.Logins,
		Token: s.opts.Token, OpenLogin: !s.opts.WebOnly, Secure: s.opts.TLSCert != "", BaseURL: s.URL(), Logger: s.log})))
	return mux
}

// Serve answers requests until ctx ends, then shuts down: it stops
// accepting, ends every call in flight (their waits return at once) and
// every open stream, closes the MCP connections, and waits up to
// ShutdownGrace for handlers to return before closing what is left. The
// caller then closes the session manager, which ends the process trees.
// It returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(s.ln) }()
	select {
	case err := <-errc:
		s.cancelBase()
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- s.http.Shutdown(sctx) }()
	// Ends every call's context (bindCall), open streams and request
	// contexts; then closing the MCP connections no longer waits on waits.
	s.cancelBase()
	for ss := range s.mcp.Sessions() {
		_ = ss.Close()
	}
	err := <-shut
	if err != nil {
		s.log.Warn("HTTP requests still open after the shutdown grace; closing them", "err", err)
		_ = s.http.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return nil
}

// isLoopbackAddr reports whether host:port names only this machine.
// An empty host means every interface.
func isLoopbackAddr(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("listen address %q: want host:port, e.g. 127.0.0.1:7777: %w", addr, err)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}
