package session

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/backend/backendtest"
	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/record"
)

// TestScripted_InputGateFlushed: once a local terminal has taken in all of
// the input after the write returned (FlushInput), a reader found asleep in
// read, select or poll has nothing left to take: the verdict is believed at
// the first look, with no hold, even if the reader never ran (a partial
// line to a canonical reader). Every other case keeps the gate. The
// fingerprint moves at every look, so a verdict that needs the gate's hold
// never comes and the wait times out.
func TestScripted_InputGateFlushed(t *testing.T) {
	delivered := backend.InputWaits{Gated: true, Grace: time.Hour, ExactMarks: true, Delivered: true}
	flushing := inputwait.Readers{IDs: 1, Runs: 10, Flushing: true}
	cases := []struct {
		name     string
		waits    backend.InputWaits
		flushErr error
		readers  inputwait.Readers // what the wait's looks find
		moves    bool              // the fingerprint moves at every look
		reason   Reason
		flushes  int32
	}{
		{"the reader never ran", delivered, nil, flushing, false, ReasonAwaiting, 1},
		{"the reader ran and sleeps again", delivered, nil, inputwait.Readers{IDs: 1, Runs: 11, Flushing: true}, true, ReasonAwaiting, 1},
		{"the reader waits in epoll", delivered, nil, inputwait.Readers{IDs: 1, Runs: 11}, true, ReasonTimeout, 1},
		{"the flush failed", delivered, errors.New("no peer"), flushing, true, ReasonTimeout, 1},
		{"not a local terminal", backend.InputWaits{Gated: true, Grace: time.Hour}, nil, flushing, true, ReasonTimeout, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p *backendtest.Process
			var flushes atomic.Int32
			var early atomic.Bool // flushed before the write
			flush := func() error {
				flushes.Add(1)
				early.Store(p.Input() != "y\r")
				return c.flushErr
			}
			sm := scripted(t, Config{}, backendtest.Options{Waits: c.waits, Flush: flush})
			var s *Session
			s, p = sm.start(t, record.ModePTY)
			before := awaitingProbe(5)
			before.Readers = flushing
			p.SetProbe(before, nil)
			if _, err := s.Send(Input{Text: "y", Enter: true}, time.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			p.SetProbeFunc(func(n int) inputwait.Probe {
				pr := awaitingProbe(5)
				if c.moves {
					pr = awaitingProbe(uint64(100 + n))
				}
				pr.Readers = c.readers
				return pr
			})
			mark := s.LastInput()
			res := s.Wait(context.Background(), 0, WaitOptions{Timeout: 100 * time.Millisecond, Input: &mark})
			if res.Reason != c.reason || flushes.Load() != c.flushes || early.Load() {
				t.Fatalf("wait = %+v after %d flushes (before the write: %v), want %s after %d", res, flushes.Load(), early.Load(), c.reason, c.flushes)
			}
		})
	}
}

// TestScripted_ReplyBeforeTheWait: a reply already in the log when the
// wait after input starts (a quick program answered while the write and
// its flush returned) is probed at once. Only a wait that has seen
// nothing after the input pauses first (minProbe): the program cannot
// have taken the input in yet.
func TestScripted_ReplyBeforeTheWait(t *testing.T) {
	delivered := backend.InputWaits{Gated: true, Grace: time.Hour, ExactMarks: true, Delivered: true}
	flushing := inputwait.Readers{IDs: 1, Runs: 10, Flushing: true}
	cases := []struct {
		name  string
		reply string // printed as the input is written
		naps  int32  // naps before the wait's first probe
	}{
		{"the reply is in the log", "42\r\n>>> ", 0},
		{"nothing after the input yet", "", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sm := scripted(t, Config{}, backendtest.Options{Waits: delivered, Flush: func() error { return nil }})
			s, p := sm.start(t, record.ModePTY)
			before := awaitingProbe(5)
			before.Readers = flushing
			p.SetProbe(before, nil)
			p.OnWrite(func([]byte) {
				if c.reply != "" {
					p.Print(c.reply)
				}
			})
			if _, err := s.Send(Input{Text: "print(6*7)", Enter: true}, time.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			var napsAtFirst atomic.Int32
			p.SetProbeFunc(func(n int) inputwait.Probe {
				if n == 1 {
					napsAtFirst.Store(int32(p.Naps()))
				}
				pr := awaitingProbe(5)
				pr.Readers = flushing
				return pr
			})
			mark := s.LastInput()
			naps := p.Naps()
			res := s.Wait(context.Background(), 0, WaitOptions{Timeout: 10 * time.Second, Input: &mark})
			if res.Reason != ReasonAwaiting || napsAtFirst.Load()-int32(naps) != c.naps {
				t.Fatalf("wait = %+v with %d naps before its first probe, want awaiting_input after %d", res, napsAtFirst.Load()-int32(naps), c.naps)
			}
		})
	}
}
