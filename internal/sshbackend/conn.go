package sshbackend

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// Conn is one SSH connection and the sessions multiplexed on it.
//
// Ownership: newConn starts the watcher (returns when the connection ends)
// and the keepalive loop (returns when the connection ends or the pool
// closes); both are counted in Pool.wg.
type Conn struct {
	pool   *Pool
	target target
	client *ssh.Client
	jumps  []*ssh.Client // ProxyJump hops, closed after client
	dead   chan struct{} // closed by the watcher once the connection ended and reason is set
	since  time.Time

	hmu    sync.Mutex // guards helper; held while starting one
	helper *helper    // nil until the first request; replaced when it dies
	hErr   error      // guarded by hmu; errNoHelper once the remote is known not to be Linux
	remote string     // guarded by hmu; "Linux x86_64"

	mu     sync.Mutex
	procs  map[*process]struct{} // guarded by mu
	reason string                // guarded by mu; why the connection ended
	lostAt time.Time             // guarded by mu
}

func newConn(p *Pool, t target, client *ssh.Client, jumps []*ssh.Client) *Conn {
	c := &Conn{pool: p, target: t, client: client, jumps: jumps, dead: make(chan struct{}),
		since: time.Now(), procs: map[*process]struct{}{}}
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		c.watch()
	}()
	go func() {
		defer p.wg.Done()
		c.keepalive(p.ctx)
	}()
	return c
}

// watch waits for the connection to end and records why.
func (c *Conn) watch() {
	err := c.client.Wait()
	c.mu.Lock()
	if c.reason == "" {
		c.reason = "the connection was closed"
		if err != nil {
			c.reason = "the connection dropped: " + err.Error()
		}
	}
	c.lostAt = time.Now()
	n := len(c.procs)
	c.mu.Unlock()
	closeClients(c.jumps)
	close(c.dead)
	c.hmu.Lock()
	if c.helper != nil {
		c.helper.close()
	}
	c.hmu.Unlock()
	c.pool.log.Warn("ssh connection ended", "host", c.target.Key(), "reason", c.lostReason(), "sessions", n)
}

// keepalive asks the server for a reply every interval; after KeepaliveMax
// unanswered requests in a row the connection counts as dead and is closed,
// which also catches a server that stalls without closing the socket.
func (c *Conn) keepalive(ctx context.Context) {
	iv, maxMiss := c.pool.opts.Keepalive, c.pool.opts.KeepaliveMax
	tick := time.NewTicker(iv)
	defer tick.Stop()
	replies := make(chan error, 1)
	pending := false
	missed := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.dead:
			return
		case err := <-replies:
			pending = false
			if err != nil {
				return // the watcher records why
			}
			missed = 0
			continue
		case <-tick.C:
		}
		if pending {
			missed++
			if missed >= maxMiss {
				c.closeWith(fmt.Sprintf("the server did not answer %d keepalives in %v (stalled or unreachable)", missed, time.Duration(missed)*iv))
				return
			}
			continue
		}
		pending = true
		// SendRequest blocks until the reply or the connection's end,
		// which closeWith forces, so this goroutine always finishes.
		c.pool.wg.Add(1)
		go func() {
			defer c.pool.wg.Done()
			_, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil)
			replies <- err
		}()
	}
}

// closeWith ends the connection, recording reason for its sessions.
func (c *Conn) closeWith(reason string) {
	c.mu.Lock()
	if c.reason == "" {
		c.reason = reason
	}
	c.mu.Unlock()
	c.client.Close()
}

func (c *Conn) alive() bool {
	select {
	case <-c.dead:
		return false
	default:
		return true
	}
}

func (c *Conn) lostReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason
}

func (c *Conn) add(p *process) {
	c.mu.Lock()
	c.procs[p] = struct{}{}
	c.mu.Unlock()
}

func (c *Conn) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.procs)
}

func (c *Conn) remove(p *process) {
	c.mu.Lock()
	delete(c.procs, p)
	c.mu.Unlock()
}

// helperFor returns the running helper, starting one if needed. It returns
// errNoHelper (wrapped) when the remote cannot run it.
func (c *Conn) helperFor() (*helper, error) {
	c.hmu.Lock()
	defer c.hmu.Unlock()
	if c.hErr != nil {
		return nil, c.hErr
	}
	if c.helper != nil && c.helper.alive() {
		return c.helper, nil
	}
	if !c.alive() {
		return nil, fmt.Errorf("%w: %s", ErrLost, c.lostReason())
	}
	h, err := startHelper(c.newSession)
	if h != nil {
		c.remote = h.OS + " " + h.Arch
	}
	if errors.Is(err, errNoHelper) {
		c.hErr = err
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	c.helper = h
	return h, nil
}

func (c *Conn) info() HostInfo {
	c.mu.Lock()
	hi := HostInfo{Host: c.target.Key(), Alias: c.target.Arg, State: "connected", ConnectedAt: c.since, Sessions: []string{}}
	hi.Sessions = append(hi.Sessions, slices.Sorted(maps.Keys(c.procIDs()))...)
	if !c.lostAt.IsZero() {
		at := c.lostAt
		hi.State, hi.LostAt, hi.LostReason = "lost", &at, c.reason
	}
	c.mu.Unlock()
	c.hmu.Lock()
	hi.RemoteOS = c.remote
	switch {
	case c.hErr != nil:
		hi.Probe = "none (" + c.hErr.Error() + "): waits use until, settle_ms and exit"
	case c.remote != "":
		hi.Probe = "remote /proc probe over a second channel"
	default:
		hi.Probe = "not started yet"
	}
	c.hmu.Unlock()
	return hi
}

// procIDs is called with mu held.
func (c *Conn) procIDs() map[string]bool {
	ids := map[string]bool{}
	for p := range c.procs {
		ids[p.id] = true
	}
	return ids
}
