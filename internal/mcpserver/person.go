package mcpserver

// Questions for the person that start outside a tool call: sudo -A runs
// `agentty askpass`, which reaches the server (internal/askpass) and lands
// here. The question becomes a pending secret page of its session, and the
// person is reached the first way that works:
//
//  1. an interactive run_command on that session asks it as its next
//     round (both protocol generations);
//  2. else a client on a protocol before 2026-07-28 that supports URL
//     elicitation is asked at once with elicitation/create: the client
//     with a call in flight on that session, else the client that called
//     last;
//  3. else it waits for the agent: reads of the session say so in their
//     hint, and send_input secret=ask_user asks the person (multi-round-trip
//     clients cannot be asked outside a call).
//
// The answer goes back to askpass (and so to sudo), never to a result.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/secret"
	"github.com/agentty/agentty/internal/session"
)

// Person lets callers outside MCP (agentty askpass) ask the person through
// a server's clients. New binds it when Options.Person is set.
type Person struct{ t *tools }

// AskSecret asks the person for the secret prompt asks on behalf of
// session sessionID and returns it. The caller clears the bytes after use.
func (p *Person) AskSecret(ctx context.Context, sessionID, prompt string) ([]byte, error) {
	if p == nil || p.t == nil {
		return nil, errors.New("agentty is not ready to ask")
	}
	return p.t.askpassSecret(ctx, sessionID, prompt)
}

// people is who can be asked: the clients' calls and the pending askpass
// questions. Its fields are guarded by tools.peopleMu.
type people struct {
	recent   *mcp.ServerSession            // the client that called last
	inflight map[string]*mcp.ServerSession // session id -> a client with a call on it
	runs     map[string]bool               // sessions with an interactive run
	pending  map[string]*secret.Page       // session id -> askpass question
	changed  chan struct{}                 // closed and replaced when pending gains a page
	// waiting: session id -> the waits askWake watches for its askpass
	// questions.
	waiting map[string]map[*askWaiter]struct{}
}

// track is a receiving middleware that notes which client calls, and on
// which session.
func (t *tools) track(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if method != "tools/call" || !ok {
			return next(ctx, method, req)
		}
		var id string
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && len(p.Arguments) > 0 {
			var a struct {
				SessionID string `json:"session_id"`
			}
			_ = json.Unmarshal(p.Arguments, &a)
			id = a.SessionID
		}
		t.peopleMu.Lock()
		t.who.recent = ss
		t.peopleMu.Unlock()
		if id == "" {
			return next(ctx, method, req)
		}
		if s, err := t.mgr.Get(id); err == nil {
			id = s.ID // a name resolves to its id
		}
		defer t.onSession(id, ss)()
		return next(ctx, method, req)
	}
}

// onSession notes ss's call on session id until the returned func runs.
func (t *tools) onSession(id string, ss *mcp.ServerSession) func() {
	t.peopleMu.Lock()
	t.who.inflight[id] = ss
	t.peopleMu.Unlock()
	return func() {
		t.peopleMu.Lock()
		if t.who.inflight[id] == ss {
			delete(t.who.inflight, id)
		}
		t.peopleMu.Unlock()
	}
}

// setRun marks an interactive run on session id (it asks askpass
// questions as rounds).
func (t *tools) setRun(id string, on bool) {
	t.peopleMu.Lock()
	defer t.peopleMu.Unlock()
	if on {
		t.who.runs[id] = true
	} else {
		delete(t.who.runs, id)
	}
}

// pendingAsk returns session id's askpass page, if any, and a channel
// closed when a new one arrives.
func (t *tools) pendingAsk(id string) (*secret.Page, <-chan struct{}) {
	t.peopleMu.Lock()
	defer t.peopleMu.Unlock()
	return t.pendingLocked(id), t.who.changed
}

// pendingLocked is pendingAsk's page; peopleMu is held.
func (t *tools) pendingLocked(id string) *secret.Page {
	pg := t.who.pending[id]
	if pg != nil {
		select {
		case <-pg.Done():
			pg = nil // answered: askpass collects it
		default:
		}
	}
	return pg
}

func (t *tools) askpassSecret(ctx context.Context, id, prompt string) ([]byte, error) {
	s, err := t.mgr.Get(id)
	if err != nil {
		return nil, err
	}
	if t.pages == nil {
		return nil, errNoPages
	}
	pg, err := t.pages.Open(secret.Info{Session: s.ID, Command: s.Command, Prompt: prompt})
	if err != nil {
		return nil, err
	}
	t.peopleMu.Lock()
	if old := t.who.pending[s.ID]; old != nil {
		old.Withdraw()
	}
	t.who.pending[s.ID] = pg
	close(t.who.changed)
	t.who.changed = make(chan struct{})
	t.wakeAskedLocked(s.ID)
	run := t.who.runs[s.ID]
	ss := t.who.inflight[s.ID]
	if ss == nil {
		ss = t.who.recent
	}
	t.peopleMu.Unlock()
	defer func() {
		t.peopleMu.Lock()
		if t.who.pending[s.ID] == pg {
			delete(t.who.pending, s.ID)
		}
		t.peopleMu.Unlock()
	}()
	t.log.Info("askpass: a session asks the person for a secret", "session", s.ID)
	if !run && ss != nil && outOfBand(ss) {
		er, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "url", URL: pg.URL, ElicitationID: pg.ID,
			Message: fmt.Sprintf("%s (session %s) asks for a secret (sudo askpass):\n\n%s\n\nType it on the page agentty opens; the agent does not see it.", s.Command, s.ID, prompt)})
		switch {
		case err != nil:
			t.log.Debug("askpass: the client could not be asked; waiting for the agent", "session", s.ID, "err", err)
		case er.Action != "accept":
			pg.Withdraw()
			return nil, errors.New("the person declined to enter the password")
		}
	}
	sec, err := pg.Wait(ctx)
	switch {
	case errors.Is(err, secret.ErrDeclined), errors.Is(err, secret.ErrClosed):
		return nil, errors.New("the person declined to enter the password")
	case errors.Is(err, secret.ErrExpired):
		return nil, errors.New("nobody entered the password in time")
	case err != nil:
		pg.Withdraw()
		return nil, err
	}
	if ss != nil && outOfBand(ss) {
		_ = ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: pg.ID})
	}
	return sec, nil
}

// outOfBand reports whether ss can be asked outside a call: URL
// elicitation on a protocol before multi-round-trip.
func outOfBand(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion < mrtrVersion && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil &&
		ip.Capabilities.Elicitation.URL != nil
}

// askpassHint tells the agent a session's askpass question waits for it.
func (t *tools) askpassHint(s *session.Session, r *ReadResult) {
	if pg, _ := t.pendingAsk(s.ID); pg != nil {
		r.Hint = "sudo asks the user for a password (agentty askpass): call send_input with secret=ask_user so they can type it"
	}
}
