package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// webLoginPath is the console route that issues a one-time login URL
// (internal/web.LoginAPIPath, which this client may not import).
const webLoginPath = "/v1/web/login"

const webHelp = `Usage: agentty web [-http URL] [-token-file FILE] [-socket PATH]

Prints a one-time login URL for agentty's live web view: open it in a
browser within 2 minutes; it works once and logs that browser in (an
HttpOnly cookie), then shows the sessions live.

Without -http it asks the agentty daemon of this user (over its socket).
With -http it asks a server started with 'agentty serve -http ...': give
its URL, and its token with -token-file or $AGENTTY_TOKEN if it has one.

Flags:
`

// web prints a login URL for the web view.
func web(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, webHelp); fs.PrintDefaults() }
	server := fs.String("http", "", "URL of an agentty HTTP server (e.g. http://127.0.0.1:7777); default: this user's daemon")
	tokenFile := fs.String("token-file", "", "file holding the server's bearer token (else $"+tokenEnv+")")
	socket := fs.String("socket", "", "the daemon's socket (default $XDG_RUNTIME_DIR/agentty/agentty.sock, else under the state directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	hf := httpFlags{tokenFile: *tokenFile}
	token, err := hf.token(slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		fmt.Fprintf(stderr, "agentty web: %v\n", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url, err := webLogin(ctx, *server, token, *socket)
	if err != nil {
		fmt.Fprintf(stderr, "agentty web: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, url)
	fmt.Fprintln(stderr, "agentty web: open this URL in a browser within 2 minutes; it works once")
	return 0
}

// webLogin asks the server at base (or, if base is empty, the daemon over
// its socket: sock, or the default) for a login URL.
func webLogin(ctx context.Context, base, token, sock string) (string, error) {
	client := http.DefaultClient
	if base == "" {
		if sock == "" {
			sock = daemonSocket()
		}
		if _, err := os.Stat(sock); err != nil {
			return "", fmt.Errorf("no agentty daemon is listening at %s; start one with 'agentty daemon -web 127.0.0.1:PORT', or give a server started with 'agentty serve -http' as -http URL", sock)
		}
		client = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}
		base = "http://agentty"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(base, "/")+webLoginPath, nil)
	if err != nil {
		return "", fmt.Errorf("-http %q: %w", base, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var reply struct {
		URL   string `json:"url"`
		Error string `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&reply); err != nil {
		return "", fmt.Errorf("%s answered %s, not a login URL: is it an agentty server with the web view?", base, resp.Status)
	}
	if resp.StatusCode != http.StatusOK || reply.URL == "" {
		return "", errors.New(resp.Status + ": " + reply.Error)
	}
	return reply.URL, nil
}

// daemonSocket is where this user's agentty daemon listens:
// $XDG_RUNTIME_DIR/agentty/agentty.sock, else run/agentty.sock in the state
// directory. It must name what the daemon's own code (internal/daemon's
// DefaultSocket) names; once that is on main, this calls it.
func daemonSocket() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "agentty", "agentty.sock")
	}
	state, _ := defaultDataDir()
	return filepath.Join(state, "run", "agentty.sock")
}
