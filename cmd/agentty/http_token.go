package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// httpTokenName is the file, in the state directory, holding the token
// serve -http generates when none is given: kept across restarts so
// clients configured once keep working.
const httpTokenName = "http-token"

// errTokenReadable: a token file other users can read is refused, not
// used: they could act with this user's rights through the server.
var errTokenReadable = errors.New("is readable by other users")

// readTokenFile reads a bearer token from path, refusing a file that the
// group or others may read or write, and an empty one.
func readTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("%s %w (mode %04o): anyone who reads it can act as you through agentty; run: chmod 600 %s", path, errTokenReadable, perm, path)
	}
	b := make([]byte, 4096)
	n, err := f.Read(b)
	if err != nil && n == 0 {
		return "", fmt.Errorf("%s is empty", path)
	}
	t := strings.TrimSpace(string(b[:n]))
	if t == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return t, nil
}

// defaultHTTPTokenPath is where serve -http keeps its generated token.
func defaultHTTPTokenPath() (string, error) {
	dir, err := defaultDataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, httpTokenName), nil
}

// defaultHTTPToken reads the generated token, creating it (256 random
// bits, mode 0600, in a 0700 directory) on first use; created says it is
// new.
func defaultHTTPToken() (token, path string, created bool, err error) {
	path, err = defaultHTTPTokenPath()
	if err != nil {
		return "", "", false, err
	}
	token, err = readTokenFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return token, path, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", path, false, err
	}
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	token = hex.EncodeToString(b[:])
	// Written whole under another name, then linked into place: a server
	// starting at the same moment reads either nothing or the whole token.
	f, err := os.CreateTemp(filepath.Dir(path), httpTokenName+".*") // mode 0600
	if err != nil {
		return "", path, false, err
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(token + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(f.Name(), path)
	}
	if errors.Is(err, fs.ErrExist) { // another server made it first
		token, err = readTokenFile(path)
		return token, path, false, err
	}
	if err != nil {
		return "", path, false, err
	}
	return token, path, true, nil
}

// loopbackURL reports whether u names a server on this machine.
func loopbackURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	host := p.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
