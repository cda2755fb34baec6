// Package hostcheck is the one DNS-rebinding rule every listener agentty
// opens applies (the HTTP front end, the daemon's web view, the one-time
// secret pages): a request that arrived on a loopback address must name a
// loopback host in its Host header. A page on a foreign site whose name
// was made to resolve to 127.0.0.1 reaches the port, but its requests still
// say Host: evil.example, so they are refused before anything else is read.
// It is the rule go-sdk applies to /mcp, so every route answers alike.
package hostcheck

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Allowed reports whether r passes: it did not arrive on a loopback
// address, or its Host is localhost or a loopback IP (any port).
func Allowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !loopback(local.String()) {
		return true
	}
	return loopback(r.Host)
}

// Guard answers 403 to a request Allowed refuses, with a body saying why,
// and closes its connection without reading its body.
func Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Allowed(r) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		http.Error(w, fmt.Sprintf("403 Forbidden: Host %q is not this machine; a loopback listener answers only Host: 127.0.0.1, [::1] or localhost (DNS rebinding)", r.Host), http.StatusForbidden)
	})
}

// loopback reports whether host[:port] names this machine.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
