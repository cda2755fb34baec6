package server

// The engine side of the person's console (internal/console): live
// sessions come from the session manager, past ones and every transcript
// from the store.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/console"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/re2"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/store"
)

const (
	// consolePast is how far back the console lists past sessions, and
	// consolePastMax how many at most.
	consolePast    = 7 * 24 * time.Hour
	consolePastMax = 50
	// consoleKillGrace is SIGTERM to SIGKILL for a person's kill.
	consoleKillGrace = 2 * time.Second
	// recordPage is how many transcript records an export reads at once;
	// recordBytes covers the largest stored output record.
	recordPage  = 512
	recordBytes = 1 << 20
)

// consoleEngine implements console.Engine.
type consoleEngine struct {
	mgr   *session.Manager
	store *store.Store // nil: live sessions only
	audit *audit.Log   // nil: no audit log
}

var _ console.Engine = consoleEngine{}

func (c consoleEngine) List() ([]console.Entry, error) {
	var out []console.Entry
	live := map[string]bool{}
	for _, s := range c.mgr.List() {
		out = append(out, console.Entry{Info: s.Info(), Live: true})
		live[s.ID] = true
	}
	if c.store == nil {
		return out, nil
	}
	past, err := c.store.Sessions(time.Now().Add(-consolePast), consolePastMax+len(live))
	if err != nil {
		return out, err
	}
	n := 0
	for _, r := range past {
		if !live[r.ID] && n < consolePastMax {
			out = append(out, console.Entry{Info: r.Info()})
			n++
		}
	}
	return out, nil
}

// session finds a live session, or says how the id is not one.
func (c consoleEngine) session(id string) (*session.Session, error) {
	s, err := c.mgr.Get(id)
	switch {
	case err == nil:
		return s, nil
	case errors.Is(err, session.ErrSessionNotFound):
		return nil, console.Mark(err, console.ErrNotFound)
	case errors.Is(err, session.ErrBadArgs):
		return nil, console.Mark(err, console.ErrBadArgs)
	}
	return nil, err
}

// past finds a session the store recorded; ok is false when it has none.
func (c consoleEngine) past(id string) (store.Session, bool) {
	if c.store == nil {
		return store.Session{}, false
	}
	r, err := c.store.Session(id)
	return r, err == nil
}

func (c consoleEngine) Get(id string) (console.Entry, error) {
	s, err := c.session(id)
	if err == nil {
		return console.Entry{Info: s.Info(), Live: true}, nil
	}
	if r, ok := c.past(id); ok {
		return console.Entry{Info: r.Info()}, nil
	}
	return console.Entry{}, err
}

func (c consoleEngine) Terminal(id string) (console.Terminal, error) {
	s, err := c.session(id)
	if err == nil {
		return liveTerminal{s}, nil
	}
	if r, ok := c.past(id); ok {
		l, lerr := c.store.OpenLog(r.ID)
		if lerr != nil {
			return nil, lerr
		}
		return newPastTerminal(r, l), nil
	}
	return nil, err
}

func (c consoleEngine) Kill(ctx context.Context, id string) (console.Entry, error) {
	s, err := c.session(id)
	if err != nil {
		if r, ok := c.past(id); ok {
			return console.Entry{}, console.Mark(fmt.Errorf("session %s is not run by this agentty (state %s)", r.ID, r.State), console.ErrConflict)
		}
		return console.Entry{}, err
	}
	if c.audit != nil {
		_ = c.audit.Write(audit.Event{Event: audit.EventStop, Session: s.ID, Client: "console", Command: s.Command, PID: s.PID()})
	}
	if _, err := s.Terminate(ctx, consoleKillGrace); err != nil {
		return console.Entry{}, err
	}
	return console.Entry{Info: s.Info(), Live: true}, nil
}

func (c consoleEngine) Search(q, sessionID string) (console.SearchResult, error) {
	if c.store == nil {
		return console.SearchResult{}, console.Mark(errors.New("search needs the transcript store, which is off (--no-store)"), console.ErrConflict)
	}
	re, err := re2.Compile(q)
	if err != nil {
		return console.SearchResult{}, console.Mark(err, console.ErrBadArgs)
	}
	o := store.SearchOptions{MaxResults: 200, MaxScanBytes: 256 << 20, MaxLineBytes: 1024}
	if sessionID != "" {
		o.SessionIDs = []string{sessionID}
	}
	res, err := c.store.Search(re, o)
	if err != nil {
		return console.SearchResult{}, err
	}
	out := console.SearchResult{Scanned: res.Scanned, Complete: res.Complete, Matches: make([]console.Match, len(res.Matches))}
	for i, m := range res.Matches {
		out.Matches[i] = console.Match{SessionID: m.SessionID, Line: m.Line, Text: m.Text, Time: m.Time}
	}
	return out, nil
}

// liveTerminal is a running (or recently ended) session of this server.
type liveTerminal struct{ s *session.Session }

func (t liveTerminal) Output() outlog.Log              { return t.s.OutputLog() }
func (t liveTerminal) Mode() record.Mode               { return t.s.Mode }
func (t liveTerminal) Done() <-chan struct{}           { return t.s.Done() }
func (t liveTerminal) Status() *record.ExitStatus      { return t.s.Status() }
func (t liveTerminal) Watch() <-chan struct{}          { return t.s.Watch() }
func (t liveTerminal) Holder() string                  { return t.s.Holder() }
func (t liveTerminal) Size() (int, int)                { return t.s.Size() }
func (t liveTerminal) Take(who string) error           { return t.s.Take(who) }
func (t liveTerminal) Release(who, why string)         { t.s.Release(who, why) }
func (t liveTerminal) Type(who string, p []byte) error { return t.s.Type(who, p) }
func (t liveTerminal) Resize(rows, cols int) error     { return t.s.Resize(rows, cols) }

// pastTerminal is a session the store recorded: output only.
type pastTerminal struct {
	r    store.Session
	l    outlog.Log
	done chan struct{}
}

func newPastTerminal(r store.Session, l outlog.Log) pastTerminal {
	t := pastTerminal{r: r, l: l, done: make(chan struct{})}
	close(t.done)
	return t
}

var errPast = errors.New("this session has ended (a past session from the transcript store); its output is read-only")

func (t pastTerminal) Output() outlog.Log     { return t.l }
func (t pastTerminal) Mode() record.Mode      { return t.r.Mode }
func (t pastTerminal) Done() <-chan struct{}  { return t.done }
func (t pastTerminal) Watch() <-chan struct{} { return make(chan struct{}) }
func (t pastTerminal) Holder() string         { return "" }
func (t pastTerminal) Size() (int, int)       { return t.r.Rows, t.r.Cols }
func (t pastTerminal) Take(string) error      { return errPast }
func (t pastTerminal) Release(string, string) {}
func (t pastTerminal) Type(string, []byte) error {
	return errPast
}
func (t pastTerminal) Resize(int, int) error { return errPast }
func (t pastTerminal) Status() *record.ExitStatus {
	st := &record.ExitStatus{Signal: t.r.Signal, Lost: t.r.LostReason}
	if t.r.ExitCode != nil {
		st.Code = *t.r.ExitCode
	}
	return st
}

// recordLease writes a person's taking or handing back of a session's
// keyboard to the audit log (session.Config.OnLease).
func recordLease(a *audit.Log) func(*session.Session, string, bool, string) {
	return func(s *session.Session, holder string, taken bool, why string) {
		if a == nil {
			return
		}
		action := "taken"
		if !taken {
			action = "released"
		}
		_ = a.Write(audit.Event{Event: audit.EventLease, Session: s.ID, Client: holder, PID: s.PID(), Reason: why,
			Detail: map[string]string{"lease": action}})
	}
}
