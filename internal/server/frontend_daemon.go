package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/daemon"
	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/stdio"
	"github.com/agentty/agentty/internal/web"
)

// Daemon serves the per-user daemon's socket: MCP clients (agentty serve
// relaying its stdio) upgrade GET /v1/mcp to a JSON-RPC stream served like
// stdio; /v1/daemon reports its status, /v1/daemon/stop asks it to exit;
// /v1/daemon/web opens the web view; the person's console is mounted
// under /v1/. Serve returns nil, ending the daemon, after Idle with no
// session running and no client connected (counted from the first client,
// or from firstClientGrace after the start when none came), or when asked
// to stop while idle. Once it decided to
// stop it answers upgrades 503, which clients take as "no daemon".
type Daemon struct {
	Listener net.Listener // a daemon.Listener: same-uid peers only
	// Settings are the configuration the daemon runs with; clients with
	// another fingerprint are refused.
	Settings map[string]string
	Idle     time.Duration    // 0: never exit for idleness
	Activity func() Activity  // the core's (Server.Activity)
	Ready    func()           // called once, when the socket serves; may be nil
	Now      func() time.Time // nil: time.Now
	// Web, when set, serves the web view on its address from the start
	// (WebOnly: no MCP there); nil, it opens on loopback when first asked
	// for (POST daemon.WebPath). Its one-time login URLs are issued over
	// this socket, so only the daemon's own user can open the page.
	Web *HTTPOptions
}

// idleTick is how often the daemon looks at its activity: a quarter of the
// idle period, within [10ms, 1s].
func idleTick(idle time.Duration) time.Duration {
	return min(max(idle/4, 10*time.Millisecond), time.Second)
}

// daemonFront is one Serve of a Daemon.
type daemonFront struct {
	t   *Daemon
	ep  Endpoint
	fp  string
	ctx context.Context // the MCP connections' context: ends when Serve stops

	stopOnce sync.Once
	stop     chan struct{} // closed when the daemon was asked to stop

	conns sync.WaitGroup // upgraded MCP connections being served

	mu        sync.Mutex
	idleSince time.Time  // guarded by mu; zero while busy
	held      []net.Conn // guarded by mu; stop requests, answered by closing once the socket is free
	upgrading int        // guarded by mu; upgraded connections not yet ended
	closing   bool       // guarded by mu; set once the daemon decided to stop: no upgrade after
	reached   bool       // guarded by mu; a client has upgraded
	finished  bool       // guarded by mu; the socket is free: stop requests are answered at once
	started   time.Time

	logins *web.Logins // the web view's; its login URLs are issued over the socket
	webMu  sync.Mutex
	webURL string         // guarded by webMu; the web view's URL, "" while none is served
	webOff bool           // guarded by webMu; set once Serve ends: no web view opens after
	webs   sync.WaitGroup // the web view's server, once opened
}

// Serve implements Transport.
func (t Daemon) Serve(ctx context.Context, ep Endpoint) error {
	if t.Now == nil {
		t.Now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f := &daemonFront{t: &t, ep: ep, fp: daemon.Fingerprint(t.Settings), ctx: ctx, stop: make(chan struct{}),
		idleSince: t.Now(), started: t.Now(), logins: web.NewLogins()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+daemon.MCPPath, f.upgrade)
	mux.HandleFunc("GET "+daemon.StatusPath, f.status)
	mux.HandleFunc("POST "+daemon.StopPath, f.stopRequest)
	mux.HandleFunc("POST "+daemon.WebPath, f.webRequest)
	mux.HandleFunc("POST "+web.LoginAPIPath, f.loginRequest)
	if ep.Console != nil {
		mux.Handle("/v1/", ep.Console)
	}
	// The web view stops with ctx: end it before waiting for it.
	defer func() { cancel(); f.endWeb() }()
	if t.Web != nil {
		if _, err := f.openWeb(*t.Web); err != nil {
			return startError{err}
		}
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ep.Guard.Listener("daemon socket", t.Listener)) }()
	ep.Logger.Info("agentty daemon serving", "version", ep.Version, "pid", os.Getpid(),
		"socket", t.Listener.Addr().String(), "config", f.fp, "idle_exit", t.Idle)
	if t.Ready != nil {
		t.Ready()
	}
	err := f.wait(ctx, served)
	// No upgrade from now on (so conns.Add happens before conns.Wait); stop
	// accepting (which removes the socket and frees the claim), then end
	// the MCP connections.
	f.mu.Lock()
	f.closing = true
	f.mu.Unlock()
	shut, done := context.WithTimeout(context.Background(), httpShutdownGrace)
	_ = hs.Shutdown(shut)
	done()
	_ = t.Listener.Close()
	cancel()
	f.conns.Wait()
	// The socket is free: whoever asked us to stop may start another daemon.
	f.mu.Lock()
	for _, c := range f.held {
		c.Close()
	}
	f.held, f.finished = nil, true
	f.mu.Unlock()
	return err
}

// wait returns when ctx ends, the daemon was asked to stop, it has been
// idle for Idle, or the HTTP server failed.
func (f *daemonFront) wait(ctx context.Context, served <-chan error) error {
	tick := time.NewTicker(idleTick(f.t.Idle))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-f.stop:
			f.ep.Logger.Info("daemon asked to stop while idle: exiting")
			return nil
		case err := <-served:
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return err
		case <-tick.C:
			if f.t.Idle > 0 && f.closeIfIdle(f.idleOver) {
				f.ep.Logger.Info("daemon idle: exiting", "idle_exit", f.t.Idle)
				return nil
			}
		}
	}
}

// observeLocked updates idleSince from the core's activity and this front
// end's upgrades in progress; the caller holds mu.
func (f *daemonFront) observeLocked() (since time.Time, idle bool) {
	a := f.t.Activity()
	idle = a.Idle() && f.upgrading == 0
	switch {
	case !idle:
		f.idleSince = time.Time{}
	case f.idleSince.IsZero():
		f.idleSince = f.t.Now()
	}
	return f.idleSince, idle
}

// firstClientGrace is how long a daemon no client has reached yet waits
// for one before its idle period counts: the serve that started it
// connects moments after it listens, however short the idle period.
const firstClientGrace = 30 * time.Second

// idleOver reports whether a daemon idle since since has been idle long
// enough to exit; the caller holds mu.
func (f *daemonFront) idleOver(since time.Time) bool {
	now := f.t.Now()
	if !f.reached && now.Sub(f.started) < firstClientGrace {
		return false
	}
	return now.Sub(since) >= f.t.Idle
}

// closeIfIdle decides to stop when the daemon is idle and over reports
// true for how long it has been; from then on no upgrade is taken, so no
// client connects to a daemon on its way out.
func (f *daemonFront) closeIfIdle(over func(since time.Time) bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if since, idle := f.observeLocked(); !idle || !over(since) {
		return false
	}
	f.closing = true
	return true
}

func (f *daemonFront) status(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	since, _ := f.observeLocked()
	clients := f.upgrading
	f.mu.Unlock()
	a := f.t.Activity()
	// Clients are the upgraded connections still served, whether or not the
	// SDK still lists their session (it lets go of a session whose client
	// died before the session's calls end).
	writeJSON(w, http.StatusOK, daemon.Status{Version: f.ep.Version, PID: os.Getpid(), Fingerprint: f.fp,
		Settings: f.t.Settings, Sessions: a.Sessions, Clients: max(clients, a.Clients), IdleSince: since, IdleExit: f.t.Idle.String()})
}

// stopRequest ends an idle daemon. The connection is held open until the
// daemon has let go of the socket, so the asker knows when a new daemon
// may start.
func (f *daemonFront) stopRequest(w http.ResponseWriter, _ *http.Request) {
	if !f.closeIfIdle(func(time.Time) bool { return true }) {
		a := f.t.Activity()
		writeJSON(w, http.StatusConflict, map[string]string{"error": "the daemon has " + activityText(a) + "; it exits once idle"})
		return
	}
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	_, _ = rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	_ = rw.Flush()
	f.mu.Lock()
	if f.finished {
		conn.Close()
	} else {
		f.held = append(f.held, conn)
	}
	f.mu.Unlock()
	f.stopOnce.Do(func() { close(f.stop) })
}

func activityText(a Activity) string {
	return strings.Join([]string{plural(a.Sessions, "session") + " running", plural(a.Clients, "client") + " connected"}, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// upgrade turns the request's connection into an MCP stream.
func (f *daemonFront) upgrade(w http.ResponseWriter, r *http.Request) {
	if !headerHas(r.Header, "Connection", "upgrade") || !headerHas(r.Header, "Upgrade", daemon.UpgradeToken) {
		w.Header().Set("Upgrade", daemon.UpgradeToken)
		writeJSON(w, http.StatusUpgradeRequired, map[string]string{"error": "upgrade to " + daemon.UpgradeToken + " for MCP"})
		return
	}
	if fp := r.Header.Get(daemon.HeaderConfig); fp != f.fp {
		writeJSON(w, http.StatusConflict, map[string]string{"error": "the daemon's configuration fingerprint is " + f.fp + ", the client's " + fp})
		return
	}
	f.mu.Lock()
	closing := f.closing
	if !closing {
		f.upgrading++
		f.reached = true
		f.conns.Add(1)
	}
	f.mu.Unlock()
	if closing {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "the daemon is exiting"})
		return
	}
	defer func() {
		f.mu.Lock()
		f.upgrading--
		f.mu.Unlock()
		f.conns.Done()
	}()
	if v := r.Header.Get(daemon.HeaderVersion); v != f.ep.Version {
		f.ep.Logger.Warn("client of another version connected", "client_version", v, "version", f.ep.Version)
	}
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	_ = conn.SetDeadline(time.Time{})
	_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + daemon.UpgradeToken + "\r\n\r\n")
	if err := rw.Flush(); err != nil {
		conn.Close()
		return
	}
	tr := &stdio.Transport{In: &hijacked{r: rw.Reader, Conn: conn}, Out: conn, Logger: f.ep.Logger, MaxReply: mcpserver.MaxReply}
	ctx := withClientDir(f.ctx, r.Header.Get(daemon.HeaderDir))
	if env, err := daemon.DecodeEnv(r.Header.Get(daemon.HeaderEnv)); err != nil {
		f.ep.Logger.Warn("client environment unreadable; its sessions start from the daemon's", "err", err)
	} else if env != nil {
		ctx = mcpserver.WithClientEnv(ctx, env)
	}
	ss, err := f.ep.MCP.Connect(ctx, tr, nil)
	if err != nil {
		f.ep.Logger.Warn("daemon client could not connect", "err", err)
		conn.Close()
		return
	}
	defer context.AfterFunc(f.ctx, func() { _ = ss.Close() })()
	_ = ss.Wait()
	conn.Close()
}

// hijacked reads what the HTTP server had already buffered first; Close
// closes the connection.
type hijacked struct {
	r *bufio.Reader
	net.Conn
}

func (h *hijacked) Read(p []byte) (int, error) { return h.r.Read(p) }

func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
