package httpserver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rawConn is a hand-driven TCP connection to a test server, for clients
// that misbehave in ways http.Client cannot: slow or unfinished requests.
type rawConn struct {
	t testing.TB
	net.Conn
}

// dialRaw connects to addr from the loopback address from (e.g.
// "127.0.0.2"; "" for the default), so a test can play several clients.
func dialRaw(t testing.TB, addr, from string) *rawConn {
	t.Helper()
	c, err := dialFrom(addr, from)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, Conn: c}
}

func dialFrom(addr, from string) (net.Conn, error) {
	d := net.Dialer{Timeout: 10 * time.Second}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	return d.Dial("tcp", addr)
}

// slowPost is the start of a POST /mcp whose declared body never fully
// arrives: headers and the first byte only.
func slowPost(host, auth string) string {
	req := "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n"
	if auth != "" {
		req += "Authorization: " + auth + "\r\n"
	}
	return req + "\r\n{"
}

func (c *rawConn) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// untilClosed reads until the server closes the connection or within
// passes, and returns what was read and how long it took. A reset counts as
// closed. It fails the test if the connection is still open after within.
func (c *rawConn) untilClosed(within time.Duration) (string, time.Duration) {
	c.t.Helper()
	raw, took, err := readUntilClosed(c.Conn, within)
	if err != nil {
		c.t.Fatal(err)
	}
	return raw, took
}

// readUntilClosed is untilClosed for any goroutine: it reports instead of
// failing the test.
func readUntilClosed(c net.Conn, within time.Duration) (string, time.Duration, error) {
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(within))
	var got strings.Builder
	_, err := io.Copy(&got, c)
	took := time.Since(start)
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return got.String(), took, fmt.Errorf("the server held the connection for %v without closing it; read so far: %q", within, got.String())
	case err != nil && !errors.Is(err, syscall.ECONNRESET):
		return got.String(), took, fmt.Errorf("read: %v after %q", err, got.String())
	}
	return got.String(), took, nil
}

// response parses the first HTTP response in raw.
func response(t testing.TB, raw string) *http.Response {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil {
		t.Fatalf("no HTTP response in %q: %v", raw, err)
	}
	return resp
}
