package server

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentty/agentty/internal/askpass"
	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/peers"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/session"
)

// lazyAskpass is the askpass server of the sessions, made at the first
// local session's start: its directory, script and socket are file system
// work no cold start needs, and a server whose agents never start a
// session never makes them. The manager asks for the environment (Env)
// before it starts a child, so the socket listens before any sudo can ask.
// A failure only turns askpass off, once.
type lazyAskpass struct {
	c      *AskpassConfig
	log    *slog.Logger
	person *mcpserver.Person
	mgr    atomic.Pointer[session.Manager] // set once the manager exists
	doors  *peers.Guard                    // set with mgr, before any session starts

	mu     sync.Mutex
	ap     *askpass.Server // guarded by mu; nil until made (or if it failed)
	tried  bool            // guarded by mu
	closed bool            // guarded by mu
}

// newAskpass returns nil when askpass is not configured.
func newAskpass(c *AskpassConfig, log *slog.Logger, person *mcpserver.Person) *lazyAskpass {
	if c == nil || c.Exe == "" {
		return nil
	}
	return &lazyAskpass{c: c, log: log, person: person}
}

// Env is what local sessions get (session.Config.EnvFunc): SUDO_ASKPASS
// and the socket, once the server listens; nil if it could not.
func (l *lazyAskpass) Env() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.tried && !l.closed {
		l.tried = true
		l.ap = l.listen()
	}
	if l.ap == nil {
		return nil
	}
	return l.ap.Env()
}

// listen starts serving sudo's questions (agentty askpass) to the person.
func (l *lazyAskpass) listen() *askpass.Server {
	owner := func(marker string) (string, bool) {
		m := l.mgr.Load()
		inst, id, ok := strings.Cut(marker, "/")
		return id, ok && m != nil && inst == m.Instance()
	}
	ap, err := askpass.Listen(askpass.Options{Exe: l.c.Exe, MarkerKey: proctree.EnvKey, Session: owner, Logger: l.log,
		Check: func(pid int) error { return l.doors.CheckPID("askpass socket", pid) }},
		func(ctx context.Context, r askpass.Request) ([]byte, error) {
			return l.person.AskSecret(ctx, r.Session, r.Prompt)
		})
	if err != nil {
		l.log.Warn("no SUDO_ASKPASS for sessions: sudo -A cannot ask the person", "err", err)
		return nil
	}
	return ap
}

// Close stops the server if it was made; no server is made after it.
func (l *lazyAskpass) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.ap != nil {
		_ = l.ap.Close()
	}
}
