package sshbackend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/connpool"
)

// Pool keeps one SSH connection per (user, host, port) and starts remote
// processes on them. Close it to drop every connection.
type Pool struct {
	opts Options
	hk   *hostKeys
	log  *slog.Logger

	ctx    context.Context // cancelled by Close; stops keepalives
	cancel context.CancelFunc
	wg     sync.WaitGroup        // every connection's goroutines
	conns  *connpool.Pool[*Conn] // by target key
}

// NewPool returns a pool; o may be nil.
func NewPool(o *Options) *Pool {
	opts := o.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{opts: opts, hk: &hostKeys{file: opts.KnownHosts}, log: opts.Logger,
		ctx: ctx, cancel: cancel, conns: connpool.New((*Conn).alive)}
}

// Start starts a program on spec.Host, connecting first if needed. The
// program's output goes to sink.
func (p *Pool) Start(spec backend.RemoteSpec, sink backend.Sink) (backend.Process, error) {
	t, err := parseTarget(spec.Host, loadConfig(p.opts.ConfigFile))
	if err != nil {
		return nil, err
	}
	c, err := p.conn(t, spec.AcceptNewHostKey)
	if err != nil {
		return nil, err
	}
	return startProcess(c, spec, sink)
}

// conn returns the live connection for t, dialing when there is none or the
// last one was lost.
func (p *Pool) conn(t target, accept bool) (*Conn, error) {
	key := t.Key()
	c, err := p.conns.Get(key, func() (*Conn, error) {
		client, jumps, err := p.dial(t, accept, 0)
		if err != nil {
			return nil, err
		}
		p.log.Info("ssh connected", "host", key)
		return newConn(p, t, client, jumps), nil
	}, func(c *Conn) { c.closeWith("agentty is shutting down") })
	if errors.Is(err, connpool.ErrClosed) {
		return nil, errors.New("ssh pool is closed")
	}
	return c, err
}

// maxJumps bounds ProxyJump chains (and loops in the configuration).
const maxJumps = 8

// dial connects and authenticates, through ProxyJump hosts if configured.
// The returned jump clients must be closed after the client.
func (p *Pool) dial(t target, accept bool, depth int) (*ssh.Client, []*ssh.Client, error) {
	if depth > maxJumps {
		return nil, nil, fmt.Errorf("%w: ProxyJump chain longer than %d hosts (a loop in ~/.ssh/config?)", ErrConnect, maxJumps)
	}
	var (
		nc    net.Conn
		jumps []*ssh.Client
		err   error
	)
	if t.ProxyJump != "" {
		hops := strings.Split(t.ProxyJump, ",")
		last := strings.TrimSpace(hops[len(hops)-1])
		jt, err := parseTarget(last, loadConfig(p.opts.ConfigFile))
		if err != nil {
			return nil, nil, fmt.Errorf("ProxyJump %q: %w", last, err)
		}
		if len(hops) > 1 {
			jt.ProxyJump = strings.Join(hops[:len(hops)-1], ",")
		} else if jt.ProxyJump == t.ProxyJump {
			jt.ProxyJump = ""
		}
		jc, jj, err := p.dial(jt, accept, depth+1)
		if err != nil {
			return nil, nil, fmt.Errorf("ProxyJump %s: %w", last, err)
		}
		jumps = append(jj, jc)
		if nc, err = jc.Dial("tcp", t.addr()); err != nil {
			closeClients(jumps)
			return nil, nil, fmt.Errorf("%w: %s via ProxyJump %s: %v", ErrConnect, t.addr(), last, err)
		}
	} else if nc, err = net.DialTimeout("tcp", t.addr(), p.opts.DialTimeout); err != nil {
		return nil, nil, fmt.Errorf("%w to %s (%s): %v", ErrConnect, t.Arg, t.addr(), err)
	}
	auth := buildAuth(t, &p.opts)
	defer auth.close()
	cc := &ssh.ClientConfig{
		User: t.User, Auth: auth.methods,
		HostKeyCallback:   p.hk.callback(accept),
		HostKeyAlgorithms: p.hk.algorithms(t.addr()),
		Timeout:           p.opts.DialTimeout,
	}
	_ = nc.SetDeadline(time.Now().Add(p.opts.DialTimeout))
	sc, chans, reqs, err := ssh.NewClientConn(nc, t.addr(), cc)
	if err != nil {
		nc.Close()
		closeClients(jumps)
		switch {
		case errors.Is(err, ErrUnknownHostKey), errors.Is(err, ErrHostKeyChanged):
			return nil, nil, errors.Unwrap(err) // drop the library's "handshake failed" prefix
		case strings.Contains(err.Error(), "unable to authenticate"):
			return nil, nil, authError(t, auth, err)
		}
		return nil, nil, fmt.Errorf("%w to %s (%s): %v", ErrConnect, t.Arg, t.addr(), err)
	}
	_ = nc.SetDeadline(time.Time{})
	return ssh.NewClient(sc, chans, reqs), jumps, nil
}

func closeClients(cs []*ssh.Client) {
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i].Close()
	}
}

// HostInfo describes one connection for list_hosts.
type HostInfo struct {
	Host        string // user@host:port
	Alias       string // the host argument it was opened with
	State       string // connected or lost
	ConnectedAt time.Time
	LostAt      *time.Time
	LostReason  string
	RemoteOS    string   // uname of the remote, once the input probe ran
	Probe       string   // how awaiting input is decided on this host
	Sessions    []string // ids of sessions running over this connection
}

// Hosts lists every connection, live or lost, by host.
func (p *Pool) Hosts() []HostInfo {
	conns := p.conns.All()
	out := make([]HostInfo, 0, len(conns))
	for _, c := range conns {
		out = append(out, c.info())
	}
	return out
}

// Close drops every connection and waits for their goroutines. Sessions
// still running on them end as lost. Safe to call twice.
func (p *Pool) Close() {
	conns := p.conns.Close()
	p.cancel()
	for _, c := range conns {
		c.closeWith("agentty is shutting down")
	}
	p.wg.Wait()
}
