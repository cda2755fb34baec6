package mcpserver

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
)

// TestAskWake_QuestionEndsTheWait: a wait on a session ends, with errAsked
// as its cause, when the session's program asks through agentty askpass;
// a wait begun while the question pends ends at once; a wait that ignores
// input is left alone; and stopping a watch leaves no registration behind
// (the watch is no goroutine: nothing else would clean it up).
func TestAskWake_QuestionEndsTheWait(t *testing.T) {
	person := &Person{}
	h := newPersonHarness(t, "2025-06-18", nil, Options{Person: person})
	var st StartResult
	h.run("start_process", map[string]any{"argv": []string{"sleep", "30"}, "timeout_ms": 0}, &st)
	tl := person.t
	ctx := context.Background()
	registered := func() int {
		tl.peopleMu.Lock()
		defer tl.peopleMu.Unlock()
		return len(tl.who.waiting[st.SessionID])
	}

	wctx, stop := tl.askWake(ctx, st.SessionID, session.WaitOptions{})
	ignoring, stopIgnoring := tl.askWake(ctx, st.SessionID, session.WaitOptions{IgnoreInput: true})
	if n := registered(); n != 1 || wctx.Err() != nil {
		t.Fatalf("before the question: %d watches, wait ended: %v; want 1, not ended", n, wctx.Err())
	}
	askCtx, cancelAsk := context.WithCancel(ctx)
	defer cancelAsk()
	asked := make(chan error, 1)
	go func() {
		_, err := person.AskSecret(askCtx, st.SessionID, "[sudo] password: ")
		asked <- err
	}()
	select {
	case <-wctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the question did not end the wait")
	}
	if c := context.Cause(wctx); !errors.Is(c, errAsked) {
		t.Fatalf("wait ended by %v, want errAsked", c)
	}
	if ignoring.Err() != nil {
		t.Fatalf("a wait that ignores input ended: %v", context.Cause(ignoring))
	}
	stop()
	stopIgnoring()
	if n := registered(); n != 0 {
		t.Fatalf("%d watches left after stop, want 0", n)
	}

	// The question still pends: a new wait ends at once, registering nothing.
	again, stopAgain := tl.askWake(ctx, st.SessionID, session.WaitOptions{})
	if c := context.Cause(again); !errors.Is(c, errAsked) || registered() != 0 {
		t.Fatalf("wait begun while the question pends: cause %v, %d watches; want errAsked, 0", c, registered())
	}
	stopAgain()
	cancelAsk()
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the question did not end with its context")
	}
}
