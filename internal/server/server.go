// Package server is agentty's server core: it builds the engine (session
// manager, shell registry, runner, transcript store, audit log, policy, SSH
// pool), keeps its children findable (subreaper, orphan reaper, guard),
// serves the MCP tools through any front end (stdio, HTTP/SSE, and next a
// unix socket), and owns the order everything is torn down in.
//
// A command line builds a Config, calls New, Serve with one or more
// Transports, and Close. Sessions belong to the Server, not to a front end
// or a connection, so clients may come and go.
package server

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/console"
	"github.com/agentty/agentty/internal/gate"
	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/nodebackend"
	"github.com/agentty/agentty/internal/peers"
	"github.com/agentty/agentty/internal/platform"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/runner"
	"github.com/agentty/agentty/internal/secret"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/shell"
	"github.com/agentty/agentty/internal/sshbackend"
	"github.com/agentty/agentty/internal/store"
)

// ErrStore marks New's failure to open the transcript store; the error
// reads as the store's own. Running without a store (Config.Store nil)
// avoids it.
var ErrStore = errors.New("cannot open the transcript store")

// storeError is an error of store.Open that matches ErrStore.
type storeError struct{ error }

func (e storeError) Is(target error) bool { return target == ErrStore }
func (e storeError) Unwrap() error        { return e.error }

// Server is the core: the engine, its process-tree keepers and the MCP
// server every front end carries clients to.
type Server struct {
	log     *slog.Logger
	version string
	mgr     *session.Manager
	pool    hosts
	store   *store.Store // nil: memory only
	audit   *audit.Log   // nil: no audit log
	// guard is set once the guard is armed (nil: none, or not yet);
	// guardDone is closed after that.
	guard     atomic.Pointer[proctree.Guard]
	guardDone chan struct{}
	guardKick *time.Timer // starts a guard still put off after guardDelay (keepers.go); nil: no guard
	mcp       *mcp.Server
	pages     *secret.Pages    // one-time pages where the person types secrets
	askpass   *lazyAskpass     // nil: no SUDO_ASKPASS
	doors     *peers.Guard     // checks the peers of every socket and port
	console   *console.Handler // the person's API front ends mount under /v1/
	restoreGC func()           // ends holdGCForStart (idempotent); called by returnMemory
	// mcpBuilt is mcp for returnMemory, which starts before it is built.
	mcpBuilt atomic.Pointer[mcp.Server]
	// adaptiveProcs: returnMemory enables procs once the start settled;
	// procsOff, set then (nil before), undoes it. Close calls it after
	// the keepers, returnMemory among them, have stopped.
	adaptiveProcs bool
	procsOff      func()
	calls         atomic.Int32 // calls in flight (countCalls)

	// stop ends every Serve; Close calls it first.
	done context.Context
	stop context.CancelFunc

	// The orphan reaper runs until Close stops it and waits for reaperDone.
	stopReaper context.CancelFunc
	reaperDone chan struct{}

	mu      sync.Mutex
	closed  bool           // guarded by mu; no Serve starts once set
	serving sync.WaitGroup // Serve calls in progress; Add under mu

	closeOnce sync.Once
	closeErr  error // set inside closeOnce
}

// New builds the engine and the MCP server. A bad policy or an audit log
// that cannot be opened is an error before anything starts; a store that
// cannot be opened is an error matching ErrStore.
func New(cfg Config) (*Server, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := mcpserver.CheckTools(cfg.Tools); err != nil {
		return nil, err
	}
	// A misspelt AGENTTY_PORTABLE would otherwise run Linux's own
	// strategies while the caller believes it tests macOS's.
	if err := platform.Check(); err != nil {
		return nil, err
	}
	aud, pol, err := openGate(&cfg)
	if err != nil {
		return nil, err
	}
	restoreGC := holdGCForStart()
	// Orphans of our sessions are reparented to us, stay findable, and are
	// reaped here; not where trees are tracked by ancestry, as on macOS,
	// which has no subreaper.
	if !platform.Current().Tree {
		if err := proctree.SetSubreaper(); err != nil {
			log.Warn("cannot become child subreaper; orphans go to init", "err", err)
		}
	}
	var sshOpts SSHOptions
	if cfg.SSH != nil {
		sshOpts = *cfg.SSH
	}
	sshOpts.Logger = log
	pool := hosts{ssh: sshbackend.NewPool(&sshOpts), nodes: nodebackend.NewPool(&nodebackend.Options{Version: cfg.Version, Binary: cfg.NodeBinary, Link: cfg.NodeLink, Logger: log})}
	st, err := openStore(cfg.Store, log)
	if err != nil {
		restoreGC()
		pool.Close()
		_ = aud.Close()
		return nil, storeError{err}
	}
	person := &mcpserver.Person{}
	ap := newAskpass(cfg.Askpass, log, person)
	sc := sessionConfig(&cfg, log, pool, st, aud)
	if ap != nil {
		sc.EnvFunc = ap.Env
	}
	mgr := session.NewManager(sc)
	doors := peers.New(mgr, log)
	if ap != nil {
		ap.doors = doors
		ap.mgr.Store(mgr)
	}
	s := &Server{log: log, version: cfg.Version, mgr: mgr, pool: pool, store: st, audit: aud,
		pages: secret.New(secret.Options{Logger: log}), askpass: ap, doors: doors, restoreGC: restoreGC, adaptiveProcs: cfg.AdaptiveProcs}
	started(log, &cfg, pol, aud)
	s.startKeepers(cfg.Guard)
	s.done, s.stop = context.WithCancel(context.Background())
	s.mcp = mcpserver.New(mgr, &mcpserver.Options{Version: cfg.Version, Logger: log, Policy: pol, Audit: aud,
		MaxReadBytes: cfg.MaxReadBytes, Hosts: pool, Remote: pool, Store: st,
		Shells: shell.NewRegistry(mgr), Runner: runner.New(mgr, pool.Start), Secrets: s.pages, MaxRounds: cfg.MaxRounds, Person: person, Notice: cfg.Notice})
	_ = mcpserver.SelectTools(s.mcp, cfg.Tools) // checked above
	s.mcp.AddReceivingMiddleware(endCalls, clientDir, s.countCalls)
	s.mcpBuilt.Store(s.mcp)
	s.console = console.New(consoleEngine{mgr: mgr, store: st, audit: aud}, &console.Options{Logger: log})
	return s, nil
}

func sessionConfig(cfg *Config, log *slog.Logger, pool hosts, st *store.Store, aud *audit.Log) session.Config {
	var sc SessionConfig
	if cfg.Sessions != nil {
		sc = *cfg.Sessions
	}
	c := session.Config{MaxSessions: sc.MaxSessions, OutputLimit: sc.OutputLimit, ExitedTTL: sc.ExitedTTL,
		KillGrace: sc.KillGrace, Logger: log, IdleTimeout: sc.IdleTimeout, MaxRuntime: sc.MaxRuntime,
		MaxInputBytes: cfg.MaxInputBytes, Remote: pool.Start, NoScreen: sc.NoScreen,
		OnExit: gate.RecordExit(aud, nil), LeaseTimeout: sc.LeaseTimeout, OnLease: recordLease(aud),
		Contain: cfg.Contain}
	if st != nil {
		c.NewLog, c.Recorder, c.NextID = st.NewLog, st.Recorder(), st.NextID
	}
	if g := cfg.Guard; g != nil && len(g.Keeper) > 0 {
		c.Keeper = append([]string{g.Exe}, g.Keeper...)
	}
	return c
}

// storeDelay is how long after New the transcript store opens if no call
// needed it first (guardDelay's reasoning).
const storeDelay = 100 * time.Millisecond

// openStore opens the transcript store, or returns nil without one.
func openStore(c *StoreConfig, log *slog.Logger) (*store.Store, error) {
	if c == nil {
		log.Info("transcript store off (--no-store): output is kept in memory only")
		return nil, nil
	}
	// Opened off the start path: the first tool that needs it waits for it.
	st, err := store.OpenLater(c.Dir, &store.Options{MaxSessionBytes: c.MaxSessionBytes, MaxTotalBytes: c.MaxTotalBytes,
		MaxAge: c.MaxAge, Logger: log}, storeDelay)
	if err != nil {
		return nil, err
	}
	log.Info("transcript store", "path", st.Path())
	return st, nil
}

// Close shuts the server down, in this order: every Serve stops accepting,
// ends the calls in flight and closes its connections (each bounded by
// ShutdownWait); every session's process tree is terminated; the SSH
// connections, the transcript store, the guard, the orphan reaper and the
// audit log are closed. The store and the audit log close after the trees
// so they record every exit. Close is idempotent and safe to call from
// several goroutines: all return once the first has finished. It returns
// the error of closing the store or the audit log.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.stop()
		s.serving.Wait()
		// Questions for the person end before the sessions asking them.
		if s.askpass != nil {
			s.askpass.Close()
		}
		_ = s.pages.Close()
		s.mgr.Close()
		// After the sessions: remote ones were terminated over their connections.
		s.pool.Close()
		if s.store != nil {
			s.closeErr = s.store.Close()
		}
		s.closeKeepers()
		s.closeErr = errors.Join(s.closeErr, s.audit.Close())
		if s.procsOff != nil {
			s.procsOff()
		}
	})
	return s.closeErr
}

// openGate opens the audit log and compiles the policy, which protects the
// configuration, store and audit directories.
func openGate(cfg *Config) (*audit.Log, *policy.Policy, error) {
	var pc PolicyConfig
	if cfg.Policy != nil {
		pc = *cfg.Policy
	}
	protected := slices.Clone(pc.Protected)
	if cfg.Store != nil && cfg.Store.Dir != "" {
		protected = append(protected, cfg.Store.Dir)
	}
	var aud *audit.Log
	if a := cfg.Audit; a != nil {
		var err error
		aud, err = audit.Open(a.Dir, &audit.Options{MaxSize: a.MaxSize, NoSync: a.NoSync})
		if err != nil {
			return nil, nil, err
		}
		protected = append(protected, a.Dir)
	}
	// The checker reads every command line the input limit lets through.
	p, err := policy.New(policy.Options{Rules: pc.Rules, Protected: protected, MaxScriptBytes: cfg.MaxInputBytes})
	if err != nil {
		_ = aud.Close()
		return nil, nil, err
	}
	return aud, p, nil
}
