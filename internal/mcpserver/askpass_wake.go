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
// input) is left alone. stop releases the watcher; call it after the wait.
func (t *tools) askWake(ctx context.Context, id string, w session.WaitOptions) (context.Context, func()) {
	if w.IgnoreInput || t.pages == nil { // no pages: askpass cannot ask
		return ctx, func() {}
	}
	wctx, cancel := context.WithCancelCause(ctx)
	if pg, _ := t.pendingAsk(id); pg != nil {
		cancel(errAsked)
		return wctx, func() { cancel(nil) }
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			pg, changed := t.pendingAsk(id)
			if pg != nil {
				cancel(errAsked)
				return
			}
			select {
			case <-changed:
			case <-wctx.Done():
				return
			}
		}
	}()
	return wctx, func() { cancel(nil); <-done }
}

// asked rewrites a wait that an askpass question ended: the program waits
// for input, a password the person types.
func asked(wctx context.Context, r *session.Result) {
	if context.Cause(wctx) == errAsked && r.Wait.Reason == session.ReasonCancelled {
		r.Wait.Reason, r.Wait.State = session.ReasonAwaiting, record.StateAwaitingPassword
		r.Wait.Detail = "sudo asks for a password through agentty askpass"
	}
}
