// Package client talks to the person's console API (/v1/) of an agentty:
// the user's daemon over its unix socket, or a remote agentty over HTTP
// with a bearer token. It is what `agentty ls/attach/logs/kill/export` use,
// and imports nothing of the engine (only the wire types of console/api).
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/agentty/agentty/internal/console/api"
)

// Target says where the console is.
type Target struct {
	Socket string // unix socket of the daemon ("" and no URL: SocketPath())
	URL    string // base URL of a remote agentty (http://host:port); wins over Socket
	Token  string // bearer token for URL
}

// SocketEnv names the daemon socket's path in the environment.
const SocketEnv = "AGENTTY_SOCKET"

// SocketPath is where the user's daemon listens: $AGENTTY_SOCKET, else
// $XDG_RUNTIME_DIR/agentty/agentty.sock (on Windows
// %LOCALAPPDATA%\agentty\agentty.sock), else (no absolute runtime
// directory) agentty/run/agentty.sock in the state directory
// ($XDG_STATE_HOME, else ~/.local/state). It mirrors the daemon's own
// choice (internal/daemon.DefaultSocket), which this package cannot import:
// the daemon is engine side.
func SocketPath() (string, error) {
	if p := os.Getenv(SocketEnv); p != "" {
		return p, nil
	}
	runtimeDir := "XDG_RUNTIME_DIR"
	if runtime.GOOS == "windows" {
		runtimeDir = "LOCALAPPDATA"
	}
	if d := os.Getenv(runtimeDir); filepath.IsAbs(d) {
		return filepath.Join(d, "agentty", "agentty.sock"), nil
	}
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no daemon socket: set %s or XDG_RUNTIME_DIR, or pass -socket or -http URL", SocketEnv)
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "agentty", "run", "agentty.sock"), nil
}

// Client is a connection to one agentty's console.
type Client struct {
	base   string // http://agentty or the remote URL, without a trailing /
	token  string
	socket string // "" over TCP
	hc     *http.Client
}

// New returns a client for t; nothing is dialled yet.
func New(t Target) (*Client, error) {
	if t.URL != "" {
		u, err := url.Parse(t.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("-http wants a URL like http://127.0.0.1:7777, not %q", t.URL)
		}
		base := strings.TrimSuffix(u.Scheme+"://"+u.Host+u.Path, "/")
		base = strings.TrimSuffix(base, "/mcp")
		return &Client{base: base, token: t.Token, hc: &http.Client{}}, nil
	}
	sock := t.Socket
	if sock == "" {
		var err error
		if sock, err = SocketPath(); err != nil {
			return nil, err
		}
	}
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", sock)
		if err != nil {
			return nil, fmt.Errorf("no agentty daemon at %s (start one with `agentty daemon`, or pass -http URL): %w", sock, err)
		}
		return c, nil
	}}
	return &Client{base: "http://agentty", socket: sock, hc: &http.Client{Transport: tr}}, nil
}

// Error is an error answer of the console.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string { return e.Message }

// NotFound reports whether err is the console's 404.
func NotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values) (*http.Response, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		var e api.Error
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(b))
		}
		return nil, &Error{Status: resp.StatusCode, Message: fmt.Sprintf("%s (HTTP %d)", e.Error, resp.StatusCode)}
	}
	return resp, nil
}

func (c *Client) json(ctx context.Context, method, path string, out any) error {
	resp, err := c.do(ctx, method, path, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}

// List returns the sessions: live ones, then recent past ones.
func (c *Client) List(ctx context.Context) ([]api.Session, error) {
	var out []api.Session
	return out, c.json(ctx, http.MethodGet, "/v1/sessions", &out)
}

// Get returns one session.
func (c *Client) Get(ctx context.Context, id string) (api.Session, error) {
	var out api.Session
	return out, c.json(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(id), &out)
}

// Kill terminates a session's process tree and returns it ended.
func (c *Client) Kill(ctx context.Context, id string) (api.Session, error) {
	var out api.Session
	return out, c.json(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(id)+"/kill", &out)
}

// LogOptions select what Log copies.
type LogOptions struct {
	SinceLine int64 // output after this line; 0: from the first retained
	Raw       bool  // the bytes as written, escape sequences and all
	Follow    bool  // keep copying new output until the session ends
}

// Log copies a session's output to w.
func (c *Client) Log(ctx context.Context, id string, o LogOptions, w io.Writer) error {
	q := url.Values{}
	if o.SinceLine > 0 {
		q.Set("since_line", fmt.Sprint(o.SinceLine))
	}
	if o.Raw {
		q.Set("raw", "1")
	}
	if o.Follow {
		q.Set("follow", "1")
	}
	resp, err := c.do(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(id)+"/log", q)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(w, resp.Body)
	return err
}

// Export copies a session's recording (format cast or text) to w.
func (c *Client) Export(ctx context.Context, id, format string, w io.Writer) error {
	resp, err := c.do(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(id)+"/export", url.Values{"format": {format}})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(w, resp.Body)
	return err
}

// Age renders a duration in seconds the way ls shows it.
func Age(s int64) string {
	d := time.Duration(s) * time.Second
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", s)
	case d < time.Hour:
		return fmt.Sprintf("%dm", s/60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%dd", s/86400)
}
