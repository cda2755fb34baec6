package nodebackend

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/backend"
)

// helloTimeout bounds how long a freshly started node may take to greet.
const helloTimeout = 30 * time.Second

// Options configure a Pool.
type Options struct {
	// Version names this agentty's build in the private path of the copied
	// binary (with its checksum).
	Version string
	// Binary is the static agentty copied into targets; "" means the
	// running executable.
	Binary string
	Logger *slog.Logger
	// Dial replaces the engines (tests: a node over a local exec); nil
	// uses Docker for docker:// and Kubernetes for k8s://.
	Dial func(ctx context.Context, host string) (Stream, error)
}

// Pool keeps one node per target and starts programs on them. Close it to
// end every node.
type Pool struct {
	opts   Options
	docker docker
	k8s    k8s

	mu     sync.Mutex
	slots  map[string]*slot // guarded by mu; by target key
	closed bool             // guarded by mu
}

// slot serializes starting one target's node, so concurrent starts share it.
type slot struct {
	dial sync.Mutex // held while starting the node
	conn *conn      // guarded by Pool.mu; the newest node, maybe lost
}

// NewPool returns a pool; o may be nil.
func NewPool(o *Options) *Pool {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Pool{opts: opts, slots: map[string]*slot{}}
}

// Start starts a program in the target spec.Host names, starting its node
// first if needed.
func (p *Pool) Start(spec backend.RemoteSpec, sink backend.Sink) (backend.Process, error) {
	c, err := p.conn(spec.Host)
	if err != nil {
		return nil, err
	}
	return c.start(spec, sink)
}

// Exec runs a short POSIX sh script in host's target with stdin and returns
// its stdout; args are its positional parameters. It is the file channel of
// shells in containers, as sshbackend.Pool.Exec is for SSH hosts.
func (p *Pool) Exec(ctx context.Context, host string, _ bool, script string, args []string, stdin []byte) ([]byte, error) {
	c, err := p.conn(host)
	if err != nil {
		return nil, err
	}
	timeout := callTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	m, err := c.call(request{Op: opExec, Script: script, Args: args, Data: stdin}, timeout)
	return m.Out, err
}

// conn returns the live node for host, starting one when there is none or
// the last one was lost.
func (p *Pool) conn(host string) (*conn, error) {
	t, err := parseTarget(host)
	if err != nil {
		return nil, err
	}
	key := t.key()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("node pool is closed")
	}
	sl := p.slots[key]
	if sl == nil {
		sl = &slot{}
		p.slots[key] = sl
	}
	p.mu.Unlock()

	sl.dial.Lock()
	defer sl.dial.Unlock()
	p.mu.Lock()
	c := sl.conn
	p.mu.Unlock()
	if c != nil && c.alive() {
		return c, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), helloTimeout)
	defer cancel()
	s, err := p.dial(ctx, t)
	if err != nil {
		return nil, err
	}
	c, err = newConn(key, s, helloTimeout)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.close("agentty is shutting down")
		return nil, errors.New("node pool is closed")
	}
	sl.conn = c
	p.mu.Unlock()
	p.opts.Logger.Info("node started", "host", key, "node", c.hello.Node)
	return c, nil
}

func (p *Pool) dial(ctx context.Context, t target) (Stream, error) {
	if p.opts.Dial != nil {
		return p.opts.Dial(ctx, t.key())
	}
	switch t.scheme {
	case SchemeDocker:
		return p.docker.dial(ctx, t.container, &p.opts)
	default:
		return p.k8s.dial(ctx, t, &p.opts)
	}
}

// HostInfo describes one node for list_hosts.
type HostInfo struct {
	Host        string // docker://NAME
	State       string // connected or lost
	ConnectedAt time.Time
	LostAt      *time.Time
	LostReason  string
	Node        string   // the node's agentty version, kernel and architecture
	Sessions    []string // ids of sessions running in the target
}

// Hosts lists every node, live or lost, by target.
func (p *Pool) Hosts() []HostInfo {
	p.mu.Lock()
	var conns []*conn
	for _, k := range slices.Sorted(maps.Keys(p.slots)) {
		if c := p.slots[k].conn; c != nil {
			conns = append(conns, c)
		}
	}
	p.mu.Unlock()
	out := make([]HostInfo, 0, len(conns))
	for _, c := range conns {
		h := HostInfo{Host: c.host, State: "connected", ConnectedAt: c.since, Node: c.hello.Node, Sessions: c.sessions()}
		c.mu.Lock()
		if c.lost != "" {
			at := c.lostAt
			h.State, h.LostAt, h.LostReason = "lost", &at, c.lost
		}
		c.mu.Unlock()
		slices.Sort(h.Sessions)
		out = append(out, h)
	}
	return out
}

// Close ends every node (each ends the programs it still runs) and the
// Docker client. Safe to call twice.
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	var conns []*conn
	for _, sl := range p.slots {
		if sl.conn != nil {
			conns = append(conns, sl.conn)
		}
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.close("agentty is shutting down")
	}
	p.docker.close()
}
