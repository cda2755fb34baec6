package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	core "github.com/agentty/agentty/internal/server"
)

// tokenEnv names the environment variable that can hold the bearer token.
const tokenEnv = "AGENTTY_TOKEN"

// httpFlags are serve's flags for the HTTP transports.
type httpFlags struct {
	addr        string
	tokenFile   string
	tlsCert     string
	tlsKey      string
	origins     stringList
	sessionIdle time.Duration
	bodyTimeout time.Duration
	maxConns    int
	maxConnsIP  int
}

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.addr, "http", "", "serve MCP over HTTP on host:port (e.g. 127.0.0.1:7777) instead of stdio: streamable HTTP at /mcp, legacy SSE at /sse, /healthz")
	fs.StringVar(&h.tokenFile, "token-file", "", "file holding the bearer token HTTP clients must send (else $"+tokenEnv+"); required for a non-loopback -http address")
	fs.StringVar(&h.tlsCert, "tls-cert", "", "PEM certificate file: serve HTTPS (with -tls-key)")
	fs.StringVar(&h.tlsKey, "tls-key", "", "PEM private key file for -tls-cert")
	fs.Var(&h.origins, "allowed-origin", "a browser Origin (scheme://host[:port]) allowed besides loopback ones; repeatable")
	fs.DurationVar(&h.sessionIdle, "http-session-idle", core.DefaultHTTPSessionIdle, "close an idle MCP HTTP connection after this long (agentty sessions live on); negative: never")
	fs.DurationVar(&h.bodyTimeout, "http-body-timeout", core.DefaultHTTPBodyTimeout, "a client must send a request's body within this long (headers: 10s), else its connection is closed")
	fs.IntVar(&h.maxConns, "http-max-conns", core.DefaultHTTPMaxConns, "HTTP connections open at once, in total (lowered to keep descriptors for sessions under a low ulimit -n)")
	fs.IntVar(&h.maxConnsIP, "http-max-conns-per-ip", core.DefaultHTTPMaxConnsPerIP, "HTTP connections open at once from one client address")
}

// token reads the bearer token from -token-file, else from the environment.
// A token file others can read is used, with a warning.
func (h *httpFlags) token(logger *slog.Logger) (string, error) {
	if h.tokenFile == "" {
		return strings.TrimSpace(os.Getenv(tokenEnv)), nil
	}
	b, err := os.ReadFile(h.tokenFile)
	if err != nil {
		return "", fmt.Errorf("-token-file: %w", err)
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("-token-file: %s is empty", h.tokenFile)
	}
	if st, err := os.Stat(h.tokenFile); err == nil && st.Mode().Perm()&0o077 != 0 {
		logger.Warn("the token file is readable by other users; chmod 600 it", "file", h.tokenFile, "mode", st.Mode().Perm())
	}
	return t, nil
}

// options checks the flags and turns them into the HTTP front end's
// options, before anything is started, so a bad or unsafe start is refused
// at once.
func (h *httpFlags) options(logger *slog.Logger) (*core.HTTPOptions, error) {
	token, err := h.token(logger)
	if err != nil {
		return nil, err
	}
	o := &core.HTTPOptions{Addr: h.addr, Token: token, TLSCert: h.tlsCert, TLSKey: h.tlsKey,
		AllowedOrigins: h.origins, SessionIdle: h.sessionIdle, Logger: logger,
		BodyTimeout: h.bodyTimeout, MaxConns: h.maxConns, MaxConnsPerIP: h.maxConnsIP}
	return o, o.Check()
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
