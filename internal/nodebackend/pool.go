package nodebackend

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/connpool"
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
	// Link is the agentty-link that reaches targets; "" means the one
	// next to the running executable, else on PATH (link.go).
	Link   string
	Logger *slog.Logger
	// Dial replaces the link (tests: a node over a local exec, or the
	// link's engines in process); nil runs agentty-link.
	Dial func(ctx context.Context, host string) (Stream, error)
}

// Pool keeps one node per target and starts programs on them. Close it to
// end every node.
type Pool struct {
	opts  Options
	conns *connpool.Pool[*conn] // by target key
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
	return &Pool{opts: opts, conns: connpool.New((*conn).alive)}
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
	t, err := ParseTarget(host)
	if err != nil {
		return nil, err
	}
	key := t.Key()
	c, err := p.conns.Get(key, func() (*conn, error) {
		ctx, cancel := context.WithTimeout(context.Background(), helloTimeout)
		defer cancel()
		s, err := p.dial(ctx, t)
		if err != nil {
			return nil, err
		}
		c, err := newConn(key, s, helloTimeout)
		if err == nil {
			p.opts.Logger.Info("node started", "host", key, "node", c.hello.Node)
		}
		return c, err
	}, func(c *conn) { c.close("agentty is shutting down") })
	if errors.Is(err, connpool.ErrClosed) {
		return nil, errors.New("node pool is closed")
	}
	return c, err
}

func (p *Pool) dial(ctx context.Context, t Target) (Stream, error) {
	if p.opts.Dial != nil {
		return p.opts.Dial(ctx, t.Key())
	}
	return dialLink(ctx, t, &p.opts)
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
	conns := p.conns.All()
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

// Close ends every node (each ends the programs it still runs). Safe to
// call twice.
func (p *Pool) Close() {
	for _, c := range p.conns.Close() {
		c.close("agentty is shutting down")
	}
}
