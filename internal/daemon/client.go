package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"
)

// ErrNoDaemon is returned when nothing listens on the socket.
var ErrNoDaemon = errors.New("no agentty daemon on the socket")

// ErrBusy is returned by Stop when the daemon has sessions running or
// clients connected, and so stays.
var ErrBusy = errors.New("the daemon is busy")

// ErrConfigDiffers is returned by Upgrade when the daemon runs with another
// configuration than the client's.
var ErrConfigDiffers = errors.New("the daemon runs with another configuration")

// dial connects to socket; a missing socket or a refused connection is
// ErrNoDaemon.
func dial(ctx context.Context, socket string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w (%s)", ErrNoDaemon, socket)
		}
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	return c, nil
}

// roundTrip sends one request on a fresh connection and reads the response
// head; the caller owns the connection (and the body through br).
func roundTrip(ctx context.Context, socket, method, path string, hdr http.Header) (net.Conn, *bufio.Reader, *http.Response, error) {
	return send(ctx, socket, method, path, hdr, nil)
}

// roundTripBody is roundTrip with a JSON request body.
func roundTripBody(ctx context.Context, socket, method, path string, body []byte) (net.Conn, *bufio.Reader, *http.Response, error) {
	return send(ctx, socket, method, path, http.Header{"Content-Type": {"application/json"}}, body)
}

func send(ctx context.Context, socket, method, path string, hdr http.Header, body []byte) (net.Conn, *bufio.Reader, *http.Response, error) {
	c, err := dial(ctx, socket)
	if err != nil {
		return nil, nil, nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	req, err := http.NewRequest(method, "http://agentty"+path, bytes.NewReader(body))
	if err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	if err := req.Write(c); err != nil {
		c.Close()
		return nil, nil, nil, fmt.Errorf("daemon socket: %w", err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		c.Close()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
			// Closed unanswered: a daemon on its way out (or a refusal).
			return nil, nil, nil, fmt.Errorf("%w: daemon socket: %v", ErrNoDaemon, err)
		}
		return nil, nil, nil, fmt.Errorf("daemon socket: %w", err)
	}
	if resp.StatusCode == http.StatusServiceUnavailable {
		defer c.Close()
		return nil, nil, nil, fmt.Errorf("%w: %s", ErrNoDaemon, errorBody(resp))
	}
	return c, br, resp, nil
}

// errorBody reads a {"error": "..."} body, else the body's text.
func errorBody(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return e.Error
	}
	return strings.TrimSpace(string(b))
}

// GetStatus asks the daemon on socket for its Status.
func GetStatus(ctx context.Context, socket string) (Status, error) {
	c, _, resp, err := roundTrip(ctx, socket, http.MethodGet, StatusPath, nil)
	if err != nil {
		return Status{}, err
	}
	defer c.Close()
	if resp.StatusCode != http.StatusOK {
		return Status{}, fmt.Errorf("daemon status: %s: %s", resp.Status, errorBody(resp))
	}
	var st Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return Status{}, fmt.Errorf("daemon status: %w", err)
	}
	return st, nil
}

// Stop asks the daemon to exit and, when it agreed, waits until it has let
// go of the socket (it holds this connection open until then), or ctx
// ends.
// A busy daemon answers ErrBusy with the reason.
func Stop(ctx context.Context, socket string) error {
	c, br, resp, err := roundTrip(ctx, socket, http.MethodPost, StopPath, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusConflict:
		return fmt.Errorf("%w: %s", ErrBusy, errorBody(resp))
	default:
		return fmt.Errorf("daemon stop: %s: %s", resp.Status, errorBody(resp))
	}
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	// The response has no body; what follows is the daemon closing it.
	if _, err := io.Copy(io.Discard, br); err != nil {
		return fmt.Errorf("waiting for the daemon to exit: %w", err)
	}
	return nil
}

// OpenWeb asks the daemon to serve its web view (on addr, a loopback
// host:port; "": DefaultWebAddr) unless it serves it already, and
// returns where, with a one-time login URL.
func OpenWeb(ctx context.Context, socket, addr string) (WebReply, error) {
	body, err := json.Marshal(WebRequest{Addr: addr})
	if err != nil {
		return WebReply{}, err
	}
	c, _, resp, err := roundTripBody(ctx, socket, http.MethodPost, WebPath, body)
	if err != nil {
		return WebReply{}, err
	}
	defer c.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusNotFound {
			return WebReply{}, fmt.Errorf("the daemon (an earlier agentty) cannot open its web view: restart it once no session runs (agentty daemon -stop), or start it with -web 127.0.0.1:PORT")
		}
		return WebReply{}, fmt.Errorf("daemon web view: %s: %s", resp.Status, errorBody(resp))
	}
	var r WebReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return WebReply{}, fmt.Errorf("daemon web view: %w", err)
	}
	return r, nil
}

// Upgrade opens an MCP stream to the daemon: the returned connection
// carries newline-delimited JSON-RPC both ways. A daemon with another
// configuration fingerprint refuses with ErrConfigDiffers. The working
// directory is sent along: the default cwd of the sessions this client
// starts.
func Upgrade(ctx context.Context, socket, version, fingerprint string) (net.Conn, error) {
	hdr := http.Header{"Connection": {"Upgrade"}, "Upgrade": {UpgradeToken},
		HeaderVersion: {version}, HeaderConfig: {fingerprint}}
	if dir, err := os.Getwd(); err == nil {
		hdr.Set(HeaderDir, dir)
	}
	hdr.Set(HeaderEnv, EncodeEnv(os.Environ()))
	c, br, resp, err := roundTrip(ctx, socket, http.MethodGet, MCPPath, hdr)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusSwitchingProtocols:
	case http.StatusConflict:
		c.Close()
		return nil, fmt.Errorf("%w: %s", ErrConfigDiffers, errorBody(resp))
	default:
		c.Close()
		return nil, fmt.Errorf("daemon upgrade: %s: %s", resp.Status, errorBody(resp))
	}
	_ = c.SetDeadline(time.Time{})
	return &bufConn{Conn: c, r: br}, nil
}

// bufConn is a connection whose first bytes may already sit in r, read
// with the response head.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// CloseWrite half-closes the connection: the daemon reads the end of the
// client's input and ends the MCP connection, as at the end of stdin.
func (c *bufConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}
