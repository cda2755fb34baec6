package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/session"
)

// notifyEvery coalesces a session's updates: at most this many a second.
const notifyEvery = 250 * time.Millisecond

// subscriptions keeps one watcher per watched session (and one for the
// list) while any client subscribes to one of its resources; the SDK keeps
// who subscribed to what and sends notifications/resources/updated only to
// them. A client's subscriptions end with it: the SDK forgets them when its
// connection closes, and so do these counts (drop).
//
// Ownership: each watcher goroutine is started by subscribe and ended by
// the last unsubscribe or drop (cancel, then wait), or by its session's
// exit; a goroutine per client waits for its connection to close.
type subscriptions struct {
	mgr *session.Manager
	log *slog.Logger
	srv *mcp.Server // set once New built it, before any request

	mu       sync.Mutex
	byClient map[*mcp.ServerSession]map[string]string // guarded by mu; per client, subscribed URI -> watcher key
	watchers map[string]*watcher                      // guarded by mu; by session id, "" for the list
}

type watcher struct {
	refs   int // guarded by subscriptions.mu: subscribed URIs across clients
	cancel context.CancelFunc
	done   chan struct{}
}

func newSubscriptions(mgr *session.Manager, log *slog.Logger) *subscriptions {
	return &subscriptions{mgr: mgr, log: log, byClient: map[*mcp.ServerSession]map[string]string{}, watchers: map[string]*watcher{}}
}

func (s *subscriptions) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	id, suffix, ok := parseURI(uri)
	if !ok {
		return mcp.ResourceNotFoundError(uri)
	}
	var sess *session.Session
	if id != "" {
		var err error
		if sess, err = s.mgr.Get(id); err != nil {
			return mcp.ResourceNotFoundError(uri)
		}
		if sess.ID != id { // updates name the session by its id
			return fmt.Errorf("%w: subscribe to %s (the session's id, not its name)", session.ErrBadArgs, sessionURI(sess.ID, suffix))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	subs := s.byClient[req.Session]
	if subs == nil {
		subs = map[string]string{}
		s.byClient[req.Session] = subs
		go func() {
			_ = req.Session.Wait()
			s.drop(req.Session)
		}()
	}
	if _, dup := subs[uri]; dup {
		return nil
	}
	subs[uri] = id
	w := s.watchers[id]
	if w == nil {
		ctx, cancel := context.WithCancel(context.Background())
		w = &watcher{cancel: cancel, done: make(chan struct{})}
		s.watchers[id] = w
		go func() {
			defer close(w.done)
			if sess == nil {
				s.watchList(ctx)
			} else {
				s.watchSession(ctx, sess)
			}
		}()
	}
	w.refs++
	return nil
}

func (s *subscriptions) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.mu.Lock()
	stop := s.release(req.Session, req.Params.URI)
	s.mu.Unlock()
	stop()
	return nil
}

// drop forgets a client whose connection closed.
func (s *subscriptions) drop(ss *mcp.ServerSession) {
	s.mu.Lock()
	var stops []func()
	for uri := range s.byClient[ss] {
		stops = append(stops, s.release(ss, uri))
	}
	delete(s.byClient, ss)
	s.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
}

// release removes one subscription and returns what stops its watcher when
// it was the last (a no-op otherwise); call it with mu held, the result
// without.
func (s *subscriptions) release(ss *mcp.ServerSession, uri string) func() {
	id, ok := s.byClient[ss][uri]
	if !ok {
		return func() {}
	}
	delete(s.byClient[ss], uri)
	w := s.watchers[id]
	if w == nil {
		return func() {}
	}
	if w.refs--; w.refs > 0 {
		return func() {}
	}
	delete(s.watchers, id)
	return func() { w.cancel(); <-w.done }
}

func (s *subscriptions) watchSession(ctx context.Context, sess *session.Session) {
	sess.WatchEvents(ctx, notifyEvery, func(session.Events) {
		for _, suffix := range []string{"", outputSuffix, screenSuffix} {
			s.updated(ctx, sessionURI(sess.ID, suffix))
		}
	})
	// A watcher whose session exited stays registered until unsubscribed;
	// there is nothing more to report.
}

func (s *subscriptions) watchList(ctx context.Context) {
	var last time.Time
	for {
		select {
		case <-s.mgr.Changed():
		case <-ctx.Done():
			return
		}
		if wait := time.Until(last.Add(notifyEvery)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
		last = time.Now()
		s.updated(ctx, sessionsURI)
	}
}

func (s *subscriptions) updated(ctx context.Context, uri string) {
	if err := s.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		s.log.Debug("resource update not sent", "uri", uri, "err", err)
	}
}
