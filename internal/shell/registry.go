package shell

import (
	"context"
	"sync"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/session"
)

// Registry knows which sessions of a Manager are shells. The sessions
// themselves belong to the Manager; the registry only adds the integration
// state, and forgets a shell once the Manager has forgotten its session.
type Registry struct {
	mgr    *session.Manager
	mu     sync.Mutex
	shells map[string]*Shell // guarded by mu; by session id
}

// NewRegistry returns an empty registry over mgr.
func NewRegistry(mgr *session.Manager) *Registry {
	return &Registry{mgr: mgr, shells: map[string]*Shell{}}
}

// Open opens a shell and registers it.
func (g *Registry) Open(ctx context.Context, o OpenOptions) (*Shell, string, error) {
	g.prune()
	sh, banner, err := Open(ctx, g.mgr, o)
	if sh != nil {
		g.mu.Lock()
		g.shells[sh.sess.ID] = sh
		g.mu.Unlock()
	}
	return sh, banner, err
}

// Get finds the shell of a session id or name.
func (g *Registry) Get(id string) (*Shell, error) {
	g.prune()
	s, err := g.mgr.Get(id)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	sh, ok := g.shells[s.ID]
	g.mu.Unlock()
	if !ok {
		return nil, &NotShellError{ID: s.ID, Command: excerpt.Q(s.Command)}
	}
	return sh, nil
}

// prune forgets shells whose sessions the Manager deleted.
func (g *Registry) prune() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for id := range g.shells {
		if _, err := g.mgr.Get(id); err != nil {
			delete(g.shells, id)
		}
	}
}
