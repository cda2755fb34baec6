package httpserver

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// originSet holds the browser origins accepted besides loopback ones, in
// the canonical "scheme://host:port" form.
type originSet map[string]bool

func parseOrigins(list []string) (originSet, error) {
	set := originSet{}
	for _, o := range list {
		c, err := canonicalOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("allowed origin %q: %w", o, err)
		}
		set[c] = true
	}
	return set, nil
}

// canonicalOrigin lowercases scheme and host and makes the default port
// explicit, so http://Example.com and http://example.com:80 are one origin.
func canonicalOrigin(o string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil {
		return "", err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return "", fmt.Errorf("want scheme://host[:port], e.g. https://example.com")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), nil
}

// checkOrigin answers 403 to a request whose Origin header names a site
// other than this machine or an allowed origin, as the MCP transport spec
// requires against DNS rebinding: a page on a foreign site must not drive
// terminals through a browser. Requests without Origin (every non-browser
// client) pass.
func checkOrigin(allowed originSet, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || originAllowed(allowed, origin) {
			next.ServeHTTP(w, r)
			return
		}
		refuse(w, http.StatusForbidden, fmt.Sprintf("403 Forbidden: Origin %q is not allowed; only loopback origins are, unless agentty is started with -allowed-origin %s", origin, origin))
	})
}

func originAllowed(allowed originSet, origin string) bool {
	c, err := canonicalOrigin(origin)
	if err != nil {
		return false // "null", opaque or malformed origins
	}
	if allowed[c] {
		return true
	}
	u, _ := url.Parse(c)
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
