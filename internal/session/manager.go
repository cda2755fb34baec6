package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/record"
)

// Config holds the limits of a Manager; zero fields take defaults.
type Config struct {
	MaxSessions int           // running and exited sessions kept; default 64
	OutputLimit int64         // output bytes kept in memory per session; default 16 MiB
	ExitedTTL   time.Duration // exited sessions are removed after this; default 30 min, <0 never
	KillGrace   time.Duration // SIGTERM to SIGKILL on shutdown; default 2 s
	Logger      *slog.Logger
	// IdleTimeout terminates a running session that had no read or input
	// for this long; 0 means never (see limits.go).
	IdleTimeout time.Duration
	// MaxRuntime terminates a session that has run this long; 0 means never.
	MaxRuntime time.Duration
	// MaxInputBytes caps the input of one call; 0 means MaxInputBytes.
	MaxInputBytes int
	// OnExit, when set, is called once per session from its exit goroutine
	// after the exit status is known (for the audit log). It must not block.
	OnExit func(*Session)
	// NewLog makes a session's output log; nil means in-memory logs. A
	// durable transcript store plugs in here.
	NewLog func(sessionID string, limit int64) outlog.Log
	// Remote starts programs on other hosts (StartOptions.Host); nil turns
	// remote hosts off.
	Remote StartRemote
	// Local starts programs on this machine; nil means a PTY
	// (backend.StartPTY) or pipes (backend.StartPipe) by mode. Tests plug
	// in a scripted backend here (backend/backendtest).
	Local StartLocal
	// NoScreen leaves PTY sessions without a terminal emulator (no
	// read_screen, no tui state, no answers to terminal queries), saving
	// its memory (about 1.2 MiB per PTY session once its screen is built;
	// until then a few KiB) and CPU.
	NoScreen bool
	// Recorder observes inputs, resizes, signals and exits (nil: none).
	Recorder record.Recorder
	// Env are defaults every local child starts with, under the caller's
	// variables.
	Env map[string]string
	// EnvFunc, if set, adds defaults made when a local child is about to
	// start (SUDO_ASKPASS pointing at agentty askpass, whose socket it
	// opens at the first call), under Env and the caller's variables.
	EnvFunc func() map[string]string
	// Contain holds local sessions in cgroups, under limits and a
	// sandbox (nil: process-tree tracking, no limits, no sandbox).
	Contain *ContainConfig
	// Keeper runs proctree.RunKeeper (agentty's executable and its
	// "__keeper" word): local trees no cgroup holds, sessions' and runs',
	// start through a keeper of their own (backend.Spec.Keeper). nil
	// starts them directly.
	Keeper []string
	// LeaseTimeout is how long a person keeps the keyboard after their
	// last key (see lease.go); 0 means DefaultLeaseTimeout.
	LeaseTimeout time.Duration
	// OnLease, when set, is told when a person takes the keyboard or it
	// returns to agents (why: released, detached, idle, exited), for the
	// audit log. It must not block.
	OnLease func(s *Session, holder string, taken bool, why string)
	// NextID allocates a session id; nil means "s<n>" from a counter of
	// this Manager, an error "s<n>-<instance>". A durable store allocates ids that stay
	// unique across restarts and concurrent servers sharing it.
	NextID func() (string, error)
}

// Defaults.
const (
	DefaultMaxSessions = 64
	DefaultExitedTTL   = 30 * time.Minute
	DefaultKillGrace   = 5 * time.Second
)

// Manager owns every session: it starts them, finds them by id, expires
// exited ones and kills everything on Close.
type Manager struct {
	cfg      Config
	instance string // random per process; part of every child's marker
	spawner  *proctree.Spawner
	log      *slog.Logger

	wg sync.WaitGroup // exit goroutines

	// spawnMu is held across starting a child and recording its pid, so the
	// orphan reaper (which asks Owns) can never reap a session root before
	// the session knows it is its own.
	spawnMu sync.RWMutex
	roots   map[int]*Session // guarded by spawnMu; pids whose exit a session (nil: a run) waits for

	mu       sync.Mutex
	sessions map[string]*Session // guarded by mu
	seq      int                 // guarded by mu
	closed   bool                // guarded by mu
	removed  atomic.Uint64       // sessions deleted so far (see Removed)

	contain containment // cgroup subtree and kernel support, set up on first use

	// missing words an id Get does not hold (see ExplainMissing); guarded
	// by mu, called without it.
	missing func(id string) error

	changes  broadcast    // closed and replaced when a session starts, exits or is deleted (events.go)
	watching atomic.Int64 // running WatchEvents calls
}

// NewManager returns a Manager. Close it to kill every process it started.
func NewManager(cfg Config) *Manager {
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.OutputLimit <= 0 {
		cfg.OutputLimit = outlog.DefaultLimit
	}
	if cfg.ExitedTTL == 0 {
		cfg.ExitedTTL = DefaultExitedTTL
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = 2 * time.Second
	}
	if cfg.MaxInputBytes <= 0 {
		cfg.MaxInputBytes = MaxInputBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Recorder == nil {
		cfg.Recorder = nopRecorder{}
	}
	if cfg.Local == nil {
		cfg.Local = startLocal
	}
	if cfg.NewLog == nil {
		cfg.NewLog = func(_ string, limit int64) outlog.Log { return outlog.NewMemory(limit) }
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &Manager{cfg: cfg, instance: hex.EncodeToString(b), spawner: proctree.NewSpawner(),
		log: cfg.Logger, sessions: map[string]*Session{}, roots: map[int]*Session{}}
}

// MaxInputBytes is the most input one call may carry (Config.MaxInputBytes).
func (m *Manager) MaxInputBytes() int { return m.cfg.MaxInputBytes }

// Instance is this manager's random id, the prefix of every child's marker.
func (m *Manager) Instance() string { return m.instance }

// Spawner is the thread that forks children; the guard process uses it too.
func (m *Manager) Spawner() *proctree.Spawner { return m.spawner }

// Owns reports whether pid is the root of a session that has not collected
// its exit status yet, so the orphan reaper leaves that status alone.
func (m *Manager) Owns(pid int) bool {
	m.spawnMu.RLock()
	defer m.spawnMu.RUnlock()
	_, ok := m.roots[pid]
	return ok
}

// reaped forgets a root once its exit status was collected.
func (m *Manager) reaped(pid int) {
	m.spawnMu.Lock()
	delete(m.roots, pid)
	m.spawnMu.Unlock()
}

// Start starts a program and returns its session.
func (m *Manager) Start(o StartOptions) (*Session, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	if len(m.sessions) >= m.cfg.MaxSessions {
		m.mu.Unlock()
		return nil, &TooManySessionsError{Count: m.cfg.MaxSessions, Limit: m.cfg.MaxSessions}
	}
	m.seq++
	id := "s" + strconv.Itoa(m.seq)
	m.mu.Unlock()
	if m.cfg.NextID != nil {
		if nid, err := m.cfg.NextID(); err == nil {
			id = nid
		} else {
			// The instance suffix keeps it apart from ids the store
			// handed out before.
			id += "-" + m.instance
			m.log.Warn("no session id from the store; using a local one", "session", id, "err", err)
		}
	}

	marker := proctree.EnvKey + "=" + m.instance + "/" + id
	if o.Host != "" {
		if o.Contain != nil {
			return nil, fmt.Errorf("%w: limits and sandbox apply to local sessions; the remote host contains its own", ErrBadArgs)
		}
		return m.startRemote(o, id, marker)
	}
	callerEnv := o.Env
	if env := m.defaultEnv(); len(env) > 0 {
		maps.Copy(env, o.Env)
		o.Env = env
	}
	spec, err := resolve(&o, marker)
	o.Env = callerEnv // the session's record lists what the caller set
	if err != nil {
		return nil, err
	}
	if spec.Contain, err = m.containFor(o.Contain, o.SandboxRead, id); err != nil {
		return nil, err
	}
	spec.Keeper = m.cfg.Keeper
	s := m.newSession(o, id, spec.Argv)
	s.held = heldBy(spec.Contain)
	m.spawnMu.Lock()
	s.proc, err = m.cfg.Local(o.Mode, spec, m.spawner.Do, s.appendOutput)
	if err == nil {
		pid := s.proc.PID()
		m.roots[pid] = s
		s.disown = func() { m.reaped(pid) }
	}
	m.spawnMu.Unlock()
	if err != nil {
		return nil, startFailed(spec.Path, err)
	}
	return m.adopt(s)
}

// newSession makes the record of a session about to start.
func (m *Manager) newSession(o StartOptions, id string, argv []string) *Session {
	s := &Session{
		ID: id, Name: o.Name, Argv: argv, Mode: o.Mode, Cwd: o.Cwd,
		EnvKeys: slices.Sorted(maps.Keys(o.Env)), Started: time.Now(),
		log: m.cfg.NewLog(id, m.cfg.OutputLimit), mgr: m, disown: func() {},
		done: make(chan struct{}), readers: map[int]*reader{DefaultReader: {id: DefaultReader}},
	}
	s.Command = o.Command
	if s.Command == "" {
		s.Command = shellJoin(o.Argv)
	}
	if s.Name == "" {
		s.Name = firstWord(s.Command)
	}
	return s
}

// adopt registers a started session and starts its exit goroutine, or has
// it started when the process exits.
func (m *Manager) adopt(s *Session) (*Session, error) {
	s.lastUse = s.Started
	rows, cols := s.proc.Size()
	s.scr = s.newScreenFeed(rows, cols)
	if f := s.scr; f != nil {
		// Set before the session is published: a reader or a resize may
		// start the feeder as soon as it can find the session.
		f.start = func() {
			go func() {
				if s.feedScreen() {
					m.wg.Done()
				}
			}()
		}
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		_ = s.proc.Terminate(context.Background(), 0)
		s.proc.Close()
		if s.scr != nil {
			s.scr.scr.Close()
		}
		return nil, ErrClosed
	}
	m.sessions[s.ID] = s
	m.wg.Add(1)
	if s.scr != nil {
		m.wg.Add(1)
	}
	m.mu.Unlock()
	// Recorded before the exit goroutine runs, so the start always
	// precedes the exit in the transcript.
	m.cfg.Recorder.Started(record.Start{ID: s.ID, Name: s.Name, Command: s.Command, Argv: s.Argv, Cwd: s.Cwd,
		EnvKeys: s.EnvKeys, Mode: s.Mode, Host: s.Host(), PID: s.PID(), Rows: rows, Cols: cols, Started: s.Started})
	exitLoop := func() {
		defer m.wg.Done()
		s.exitLoop()
	}
	// A local process says when it exited: the exit goroutine starts then,
	// instead of waiting the program's whole life.
	if s.proc.OnExit(func() { go exitLoop() }) != nil {
		go exitLoop()
	}
	s.armLimits()
	if f := s.scr; f != nil {
		s.feeding.Store(f)
		f.kick() // output from before the sink could kick it
	}
	m.changes.notify()
	m.log.Info("session started", "session", s.ID, "pid", s.PID(), "host", s.Host(), "mode", string(s.Mode), "command", s.Command)
	return s, nil
}

// startRemote starts a session on another host through Config.Remote.
func (m *Manager) startRemote(o StartOptions, id, marker string) (*Session, error) {
	if m.cfg.Remote == nil {
		return nil, fmt.Errorf("%w: remote hosts are not enabled in this server", ErrBadArgs)
	}
	spec, err := remoteSpec(&o, marker, id)
	if err != nil {
		return nil, err
	}
	s := m.newSession(o, id, spec.Argv)
	if s.proc, err = m.cfg.Remote(spec, s.appendOutput); err != nil {
		return nil, err
	}
	return m.adopt(s)
}

// exited is called by a session's exit goroutine.
func (m *Manager) exited(s *Session) {
	st := s.Status()
	m.log.Info("session exited", "session", s.ID, "code", st.Code, "signal", st.Signal)
	s.disarmLimits()
	m.changes.notify()
	if m.cfg.OnExit != nil {
		m.cfg.OnExit(s)
	}
	if m.cfg.ExitedTTL < 0 {
		return
	}
	s.mu.Lock()
	s.expire = time.AfterFunc(m.cfg.ExitedTTL, func() { _ = m.Delete(s.ID) })
	s.mu.Unlock()
}

// ExplainMissing sets how Get words an id it does not hold, for sessions
// known elsewhere (a transcript store shared with other servers and earlier
// runs). f returns nil for an id it does not know either; an error it
// returns should wrap ErrSessionNotFound.
func (m *Manager) ExplainMissing(f func(id string) error) {
	m.mu.Lock()
	m.missing = f
	m.mu.Unlock()
}

// Get finds a session by id, or by name when exactly one session has it.
func (m *Manager) Get(id string) (*Session, error) {
	s, err := m.get(id)
	if err == nil || !errors.Is(err, ErrSessionNotFound) {
		return s, err
	}
	m.mu.Lock()
	explain := m.missing
	m.mu.Unlock()
	if explain != nil {
		if e := explain(id); e != nil {
			return nil, e
		}
	}
	return nil, err
}

func (m *Manager) get(id string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.sessions[id]; ok {
		return s, nil
	}
	var named []string
	var found *Session
	for _, s := range m.sessions {
		if s.Name == id && id != "" {
			named = append(named, s.ID)
			found = s
		}
	}
	switch len(named) {
	case 1:
		return found, nil
	case 0:
		return nil, &NotFoundError{ID: id, ExitedTTL: m.cfg.ExitedTTL}
	}
	slices.Sort(named)
	return nil, fmt.Errorf("%w: name %s is shared by sessions %s; use the session id", ErrBadArgs, excerpt.Q(id), strings.Join(named, ", "))
}

// List returns every session, oldest first.
func (m *Manager) List() []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Collect(maps.Values(m.sessions))
	slices.SortFunc(out, func(a, b *Session) int {
		return a.Started.Compare(b.Started)*2 + strings.Compare(a.ID, b.ID)
	})
	return out
}

// Removed counts the sessions deleted so far (by Delete, whoever called it),
// so the server can give their memory back to the system.
func (m *Manager) Removed() uint64 { return m.removed.Load() }

// Delete removes an exited session and frees everything it held.
func (m *Manager) Delete(id string) error {
	s, err := m.Get(id)
	if err != nil {
		return err
	}
	if !isDone(s.done) {
		return &RunningError{ID: s.ID}
	}
	m.mu.Lock()
	delete(m.sessions, s.ID)
	m.mu.Unlock()
	m.removed.Add(1)
	s.mu.Lock()
	if s.expire != nil {
		s.expire.Stop()
	}
	s.mu.Unlock()
	// Stray descendants may still hold the terminal; end them with the record.
	_ = s.proc.Terminate(context.Background(), 0)
	s.closeLog()
	s.release()
	m.changes.notify()
	m.log.Info("session deleted", "session", s.ID)
	return nil
}

// Close terminates every session's process tree and waits for them. Safe to
// call more than once.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	all := slices.Collect(maps.Values(m.sessions))
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), m.cfg.KillGrace+5*time.Second)
			defer cancel()
			_, _ = s.Terminate(ctx, m.cfg.KillGrace)
			s.mu.Lock()
			if s.expire != nil {
				s.expire.Stop()
			}
			s.mu.Unlock()
		}()
	}
	wg.Wait()
	m.wg.Wait()
	m.closeContain()
	m.spawner.Close()
}

// shellJoin renders argv for display.
func shellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]{}~!#") {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

// defaultEnv is a new map of what every local child starts with under the
// caller's variables: cfg.EnvFunc's, then cfg.Env's over them.
func (m *Manager) defaultEnv() map[string]string {
	var env map[string]string
	if m.cfg.EnvFunc != nil {
		env = maps.Clone(m.cfg.EnvFunc())
	}
	if len(m.cfg.Env) > 0 {
		if env == nil {
			env = make(map[string]string, len(m.cfg.Env))
		}
		maps.Copy(env, m.cfg.Env)
	}
	return env
}
