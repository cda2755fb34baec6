package mcpserver

import (
	"context"
	"errors"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// errAsked is the cause of a wait ended by an askpass question.
var errAsked = errors.New("asked through agentty askpass")

// askWake returns ctx, cancelled with errAsked once session id's program
// asks for a password through agentty askpass: sudo -A then blocks on the
// askpass helper, not on the terminal, so no wait would otherwise see the
// program wait for input. A wait that ignores input (return_on without
// input) is left alone. stop releases the watch; call it after the wait.
//
// The watch is a registration askpassSecret cancels, not a goroutine: a
// goroutine started and stopped around every wait cost each send_input a
// few thread wake-ups.
func (t *tools) askWake(ctx context.Context, id string, w session.WaitOptions) (context.Context, func()) {
	if w.IgnoreInput || t.pages == nil { // no pages: askpass cannot ask
		return ctx, func() {}
	}
	wctx, cancel := context.WithCancelCause(ctx)
	a := &askWaiter{cancel: cancel}
	t.peopleMu.Lock()
	if t.pendingLocked(id) != nil {
		t.peopleMu.Unlock()
		cancel(errAsked)
		return wctx, func() { cancel(nil) }
	}
	ws := t.who.waiting[id]
	if ws == nil {
		ws = map[*askWaiter]struct{}{}
		t.who.waiting[id] = ws
	}
	ws[a] = struct{}{}
	t.peopleMu.Unlock()
	return wctx, func() {
		t.peopleMu.Lock()
		delete(ws, a)
		if len(t.who.waiting[id]) == 0 {
			delete(t.who.waiting, id)
		}
		t.peopleMu.Unlock()
		cancel(nil)
	}
}

// askWaiter is one wait askWake watches.
type askWaiter struct{ cancel context.CancelCauseFunc }

// wakeAskedLocked ends the waits on session id: its program asks through
// askpass. Called with peopleMu held.
func (t *tools) wakeAskedLocked(id string) {
	for a := range t.who.waiting[id] {
		a.cancel(errAsked)
	}
}

// asked rewrites a wait that an askpass question ended: the program waits
// for input, a password the person types.
func asked(wctx context.Context, r *session.Result) {
	if context.Cause(wctx) == errAsked && r.Wait.Reason == session.ReasonCancelled {
		r.Wait.Reason, r.Wait.State = session.ReasonAwaiting, record.StateAwaitingPassword
		r.Wait.Detail = "sudo asks for a password through agentty askpass"
	}
}
