package server

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/agentty/agentty/internal/askpass"
	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/session"
)

// startAskpass listens for sudo's questions (agentty askpass) and hands
// them to person. Its sessions are found through the manager, which is
// made after (it needs the askpass environment): the caller stores it in
// the returned pointer. A failure only turns askpass off.
func startAskpass(c *AskpassConfig, log *slog.Logger, person *mcpserver.Person) (*askpass.Server, *atomic.Pointer[session.Manager]) {
	mgr := &atomic.Pointer[session.Manager]{}
	if c == nil || c.Exe == "" {
		return nil, mgr
	}
	owner := func(marker string) (string, bool) {
		m := mgr.Load()
		inst, id, ok := strings.Cut(marker, "/")
		return id, ok && m != nil && inst == m.Instance()
	}
	ap, err := askpass.Listen(askpass.Options{Exe: c.Exe, MarkerKey: proctree.EnvKey, Session: owner, Logger: log},
		func(ctx context.Context, r askpass.Request) ([]byte, error) {
			return person.AskSecret(ctx, r.Session, r.Prompt)
		})
	if err != nil {
		log.Warn("no SUDO_ASKPASS for sessions: sudo -A cannot ask the person", "err", err)
		return nil, mgr
	}
	return ap, mgr
}
