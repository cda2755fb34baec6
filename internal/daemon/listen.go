package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/peers"
)

// ErrRunning is returned by Listen when another daemon holds the socket.
var ErrRunning = errors.New("another agentty daemon holds the socket")

// Listener is the daemon's socket: a unix listener that hands out only
// connections from this process's uid. It holds the socket's lock file
// (the socket path + ".lock", flock'd) until Close, so two daemons never
// serve one socket; the kernel drops the lock when the process dies, so a
// crashed daemon leaves a stale socket file but no stale claim.
type Listener struct {
	ln   *net.UnixListener
	lock *os.File
	path string
	log  *slog.Logger
	self peers.Cred

	closeOnce sync.Once
	closeErr  error
}

// Listen claims socket and listens on it, 0600 in a 0700 directory. A
// socket file left by a dead daemon is replaced. It returns ErrRunning when
// a live daemon holds the claim.
func Listen(socket string, log *slog.Logger) (*Listener, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	self, err := peers.Self()
	if err != nil {
		return nil, err
	}
	if err := prepareDir(socket); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(socket+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(lock); err != nil {
		lock.Close()
		if errors.Is(err, ErrRunning) {
			return nil, err
		}
		return nil, fmt.Errorf("locking %s.lock: %w", socket, err)
	}
	// We hold the claim: a socket file here is a dead daemon's.
	if err := os.Remove(socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		lock.Close()
		return nil, err
	}
	ln, err := listenPrivate(socket)
	if err != nil {
		lock.Close()
		return nil, err
	}
	// Close removes the file while we still hold the claim; never on GC.
	ln.SetUnlinkOnClose(false)
	return &Listener{ln: ln, lock: lock, path: socket, log: log, self: self}, nil
}

// Claim is Listen that, while another daemon holds the claim, waits until
// that daemon answers on the socket (ErrRunning) or lets the claim go (then
// the claim is ours), at most within. A daemon binds its socket moments
// after it claims it and lets the claim go moments after it stops
// serving; no event announces either, so Claim polls with backoff.
func Claim(ctx context.Context, socket string, log *slog.Logger, within time.Duration) (*Listener, error) {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		l, err := Listen(socket, log)
		if !errors.Is(err, ErrRunning) {
			return l, err
		}
		if c, err := dial(ctx, socket); err == nil {
			c.Close()
			return nil, ErrRunning
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("another daemon holds %s.lock but does not answer on the socket", socket)
		case <-t.C:
		}
	}
}

// Accept returns the next connection from this user. A connection from
// another user, or one whose peer cannot be told, is closed at once and
// logged.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			return nil, err
		}
		cred, err := peers.Of(c)
		switch {
		case err != nil:
			l.log.Warn("refused a daemon socket connection whose peer cannot be told", "err", err)
		case cred.SameUser(l.self):
			return c, nil
		default:
			l.log.Warn("refused a daemon socket connection from another user", "uid", cred.UID, "sid", cred.SID, "pid", cred.PID)
		}
		c.Close()
	}
}

// Close stops listening, removes the socket file and releases the claim,
// in that order, so a new daemon never finds its fresh socket removed.
// It is idempotent.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		l.closeErr = l.ln.Close()
		if err := os.Remove(l.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			l.closeErr = errors.Join(l.closeErr, err)
		}
		l.closeErr = errors.Join(l.closeErr, l.lock.Close())
	})
	return l.closeErr
}

// Addr implements net.Listener.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }

// Path is the socket's file.
func (l *Listener) Path() string { return l.path }
