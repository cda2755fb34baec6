package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/agentty/agentty/internal/daemon"
	"github.com/agentty/agentty/internal/httpserver"
)

// errWebClosed refuses a web view asked for while the daemon stops.
var errWebClosed = errors.New("the daemon is exiting")

// openWeb serves the web view on opts.Addr unless one is served already,
// and returns its URL. The front end serves only the page and the console
// (WebOnly: no MCP there), behind the Host rule and the login cookie;
// the socket issues its login URLs, so only the daemon's own user (who
// passed the socket's peer checks) can open the page. It stops with the
// daemon.
func (f *daemonFront) openWeb(opts HTTPOptions) (string, error) {
	f.webMu.Lock()
	defer f.webMu.Unlock()
	switch {
	case f.webOff:
		return "", errWebClosed
	case f.webURL != "":
		return f.webURL, nil
	}
	opts.WebOnly = true
	opts.Logins = f.logins
	opts.Console = f.ep.Console
	opts.Guard = f.ep.Guard
	if opts.Logger == nil {
		opts.Logger = f.ep.Logger
	}
	if opts.ShutdownGrace == 0 {
		opts.ShutdownGrace = httpShutdownGrace
	}
	hs, err := httpserver.New(f.ep.MCP, &opts)
	if err != nil {
		return "", fmt.Errorf("web view: %w", err)
	}
	f.webURL = hs.URL()
	f.ep.Logger.Info("agentty daemon serving the web view", "url", f.webURL+"/")
	f.webs.Add(1)
	go func() {
		defer f.webs.Done()
		if err := hs.Serve(f.ctx); err != nil && f.ctx.Err() == nil {
			f.ep.Logger.Error("web view stopped", "err", err)
		}
	}()
	return f.webURL, nil
}

// endWeb lets no web view open from now on and waits for the one served,
// which stops once the daemon's context has ended.
func (f *daemonFront) endWeb() {
	f.webMu.Lock()
	f.webOff = true
	f.webMu.Unlock()
	f.webs.Wait()
}

// webRequest answers POST daemon.WebPath: it opens the web view when none
// is served (on the loopback address asked for, else 127.0.0.1 on a port
// the system chooses) and answers its URL with a one-time login URL.
func (f *daemonFront) webRequest(w http.ResponseWriter, r *http.Request) {
	var req daemon.WebRequest
	if b, _ := io.ReadAll(io.LimitReader(r.Body, 4<<10)); len(b) > 0 {
		if err := json.Unmarshal(b, &req); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the request is not a web request: " + err.Error()})
			return
		}
	}
	addr := req.Addr
	if addr == "" {
		addr = daemon.DefaultWebAddr
	}
	if !loopbackAddr(addr) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the web view opens on a loopback address only (e.g. 127.0.0.1:7777), not " + addr +
			"; to serve it beyond this machine, start the daemon with -web ADDR and $AGENTTY_TOKEN set"})
		return
	}
	base, err := f.openWeb(HTTPOptions{Addr: addr})
	switch {
	case errors.Is(err, errWebClosed):
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
		return
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	login := f.logins.NewLogin(base)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, daemon.WebReply{URL: base, Login: login.URL, Expires: login.Expires})
}

// loginRequest answers web.LoginAPIPath as a server started with -http
// does, opening the web view first when none is served: an agentty web
// of an earlier version asks this.
func (f *daemonFront) loginRequest(w http.ResponseWriter, r *http.Request) {
	if _, err := f.openWeb(HTTPOptions{Addr: daemon.DefaultWebAddr}); err != nil {
		code := http.StatusInternalServerError
		if errors.Is(err, errWebClosed) {
			code = http.StatusServiceUnavailable
		}
		writeJSON(w, code, map[string]string{"error": err.Error()})
		return
	}
	f.logins.Handler().ServeHTTP(w, r)
}

// loopbackAddr reports whether host:port names only this machine.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}
