package session

// Unit tests of the session engine on scripted processes (backendtest):
// waits, input, signals and termination, driven event by event, with no
// process running. The real-process tests stay beside them.

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/backend/backendtest"
	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/record"
)

// scripted returns a manager whose local sessions run on scripted
// processes made with o (PTY and size follow each start's options).
func scripted(t *testing.T, cfg Config, o backendtest.Options) *scriptedManager {
	t.Helper()
	sm := &scriptedManager{procs: make(chan *backendtest.Process, 8)}
	cfg.Local = func(mode record.Mode, spec backend.Spec, _ func(func()), sink backend.Sink) (backend.Process, error) {
		o := o
		o.PTY, o.Rows, o.Cols = mode == record.ModePTY, spec.Rows, spec.Cols
		p := backendtest.New(o, sink)
		sm.procs <- p
		return p, nil
	}
	sm.Manager = NewManager(cfg)
	t.Cleanup(sm.Close)
	return sm
}

type scriptedManager struct {
	*Manager
	procs chan *backendtest.Process
}

// start starts a scripted session in mode and returns it with its process.
func (sm *scriptedManager) start(t *testing.T, mode record.Mode) (*Session, *backendtest.Process) {
	t.Helper()
	s, err := sm.Start(StartOptions{Argv: []string{"sh"}, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return s, <-sm.procs
}

func awaitingProbe(fp uint64) inputwait.Probe {
	return inputwait.Probe{State: inputwait.AwaitingInput, Fingerprint: fp, Detail: fmt.Sprintf("scripted read, fingerprint %d", fp)}
}

func TestScripted_WaitEnds(t *testing.T) {
	long := 10 * time.Second
	cases := []struct {
		name string
		mode record.Mode
		// before runs before the wait; during once the wait probed.
		before, during func(p *backendtest.Process)
		opts           WaitOptions
		reason         Reason
		state          record.State
		match          string
		detail         string
		code           *int
	}{
		{name: "until matches output that arrives during the wait", mode: record.ModePipe,
			during: func(p *backendtest.Process) { p.Print("loading\nready> ") },
			opts:   WaitOptions{Timeout: long, Until: regexp.MustCompile(`ready>`)},
			reason: ReasonMatched, state: "running", match: "ready>"},
		{name: "until counts only output after the cursor", mode: record.ModePTY,
			before: func(p *backendtest.Process) { p.Print("old ready>\r\n") },
			during: func(p *backendtest.Process) { p.End(0) },
			opts:   WaitOptions{Timeout: long, Until: regexp.MustCompile(`ready>`)},
			reason: ReasonExited, state: "exited", code: new(int)},
		{name: "exit ends the wait with the status", mode: record.ModePipe,
			during: func(p *backendtest.Process) { p.Print("bye\n"); p.End(3) },
			opts:   WaitOptions{Timeout: long},
			reason: ReasonExited, state: "exited", code: ptr(3)},
		{name: "a dropped connection ends it as lost", mode: record.ModePTY,
			during: func(p *backendtest.Process) { p.Exit(backend.Exit{Code: -1, Lost: "connection reset"}); p.EOF() },
			opts:   WaitOptions{Timeout: long},
			reason: ReasonExited, state: record.StateLost},
		{name: "the kernel's verdict ends it awaiting input", mode: record.ModePTY,
			during: func(p *backendtest.Process) { p.SetProbe(awaitingProbe(1), nil) },
			opts:   WaitOptions{Timeout: long},
			reason: ReasonAwaiting, state: "awaiting_input", detail: "scripted read, fingerprint 1"},
		{name: "a password prompt", mode: record.ModePTY,
			before: func(p *backendtest.Process) {
				p.SetProbe(inputwait.Probe{State: inputwait.AwaitingPassword, Fingerprint: 9, Detail: "echo off"}, nil)
			},
			opts:   WaitOptions{Timeout: long},
			reason: ReasonAwaiting, state: "awaiting_password", detail: "echo off"},
		{name: "output still in flight is not awaiting", mode: record.ModePTY,
			before: func(p *backendtest.Process) { p.SetProbe(awaitingProbe(1), nil); p.SetNoisy(true) },
			opts:   WaitOptions{Timeout: 100 * time.Millisecond},
			reason: ReasonTimeout, state: "awaiting_input", detail: "scripted read, fingerprint 1"},
		{name: "ignore_input waits on", mode: record.ModePipe,
			before: func(p *backendtest.Process) { p.SetProbe(awaitingProbe(1), nil) },
			opts:   WaitOptions{Timeout: 100 * time.Millisecond, IgnoreInput: true},
			reason: ReasonTimeout, state: "awaiting_input", detail: "scripted read, fingerprint 1"},
		{name: "a probe that fails is not awaiting", mode: record.ModePipe,
			before: func(p *backendtest.Process) { p.SetProbe(inputwait.Probe{}, errors.New("no /proc")) },
			opts:   WaitOptions{Timeout: 100 * time.Millisecond},
			reason: ReasonTimeout, state: "running"},
		{name: "no timeout does not wait", mode: record.ModePipe,
			before: func(p *backendtest.Process) { p.SetProbe(awaitingProbe(1), nil) },
			reason: ReasonNoWait, state: "awaiting_input", detail: "scripted read, fingerprint 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sm := scripted(t, Config{}, backendtest.Options{})
			s, p := sm.start(t, c.mode)
			if c.before != nil {
				c.before(p)
			}
			res := waitDuring(s, p, s.OutputEnd(), c.opts, c.during)
			if res.Reason != c.reason || res.State != c.state || res.Match != c.match || res.Detail != c.detail {
				t.Fatalf("wait = %+v, want reason %s state %s match %q detail %q", res, c.reason, c.state, c.match, c.detail)
			}
			if c.code != nil {
				if st := s.Status(); st == nil || st.Code != *c.code || st.Signal != "" {
					t.Fatalf("status %+v, want code %d", st, *c.code)
				}
			}
		})
	}
}

// waitDuring runs a wait and, once it is under way (it probed), during.
func waitDuring(s *Session, p *backendtest.Process, from int64, o WaitOptions, during func(*backendtest.Process)) WaitResult {
	probed := p.Probed()
	got := make(chan WaitResult, 1)
	go func() { got <- s.Wait(context.Background(), from, o) }()
	if during != nil {
		<-probed
		during(p)
	}
	return <-got
}

func ptr[T any](v T) *T { return &v }

func TestScripted_WaitSettles(t *testing.T) {
	for _, mode := range []record.Mode{record.ModePipe, record.ModePTY} {
		t.Run(string(mode), func(t *testing.T) {
			sm := scripted(t, Config{}, backendtest.Options{})
			s, p := sm.start(t, mode)
			settle := 30 * time.Millisecond
			var printed time.Time
			res := waitDuring(s, p, 0, WaitOptions{Timeout: 10 * time.Second, Settle: settle}, func(p *backendtest.Process) {
				printed = time.Now()
				p.Print("compiling\n")
			})
			if res.Reason != ReasonSettled {
				t.Fatalf("wait = %+v, want settled", res)
			}
			if quiet := time.Since(printed); quiet < settle {
				t.Fatalf("settled %v after the last output, want at least %v", quiet, settle)
			}
		})
	}
}

func TestScripted_WaitCancelled(t *testing.T) {
	sm := scripted(t, Config{}, backendtest.Options{})
	s, p := sm.start(t, record.ModePipe)
	ctx, cancel := context.WithCancel(context.Background())
	probed := p.Probed()
	got := make(chan WaitResult, 1)
	go func() { got <- s.Wait(ctx, 0, WaitOptions{Timeout: 10 * time.Second}) }()
	<-probed
	cancel()
	if res := <-got; res.Reason != ReasonCancelled || res.State != "running" {
		t.Fatalf("wait = %+v, want cancelled while running", res)
	}
}

// TestScripted_InputGate: after input, a "waiting for input" verdict from
// before the program took the input is held back where the backend says
// the probe cannot see unread input (Gated), for its grace.
func TestScripted_InputGate(t *testing.T) {
	cases := []struct {
		name  string
		waits backend.InputWaits
		// ran says the program ran after the write (its fingerprint moved).
		ran    bool
		reason Reason
	}{
		{name: "gated: the stale verdict is held", waits: backend.InputWaits{Gated: true, Grace: time.Hour}, reason: ReasonTimeout},
		{name: "gated: the program ran and blocks again", waits: backend.InputWaits{Gated: true, Grace: time.Hour}, ran: true, reason: ReasonAwaiting},
		{name: "not gated: unread input is counted by the probe", waits: backend.InputWaits{ExactMarks: true}, reason: ReasonAwaiting},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sm := scripted(t, Config{}, backendtest.Options{Waits: c.waits})
			s, p := sm.start(t, record.ModePipe)
			p.SetProbe(awaitingProbe(5), nil)
			if _, err := s.Send(Input{Text: "y", Enter: true}, time.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			if p.Input() != "y\n" {
				t.Fatalf("program took %q, want %q", p.Input(), "y\n")
			}
			if c.ran {
				p.SetProbe(awaitingProbe(6), nil)
			}
			mark := s.LastInput()
			res := s.Wait(context.Background(), 0, WaitOptions{Timeout: 200 * time.Millisecond, Input: &mark})
			if res.Reason != c.reason {
				t.Fatalf("wait = %+v, want %s", res, c.reason)
			}
		})
	}

	// Past the grace, a verdict that held with the program not running at
	// all is believed: it did not need to wake for the input.
	t.Run("gated: the grace passes", func(t *testing.T) {
		sm := scripted(t, Config{}, backendtest.Options{Waits: backend.InputWaits{Gated: true}})
		s, p := sm.start(t, record.ModePTY)
		p.SetProbe(awaitingProbe(5), nil)
		sent := time.Now()
		if _, err := s.Send(Input{Text: "partial"}, sent.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		mark := s.LastInput()
		res := s.Wait(context.Background(), 0, WaitOptions{Timeout: 10 * time.Second, Input: &mark})
		if res.Reason != ReasonAwaiting {
			t.Fatalf("wait = %+v, want awaiting_input", res)
		}
		if held := time.Since(sent); held < gateGrace {
			t.Fatalf("verdict believed %v after the input, want at least the grace %v", held, gateGrace)
		}
	})
}

// TestScripted_Send: control keys, end of input and write failures go
// through the backend contract the same for every kind of process.
func TestScripted_Send(t *testing.T) {
	noReader := fmt.Errorf("%w: %w", backend.ErrNoReader, syscall.EPIPE)
	cases := []struct {
		name     string
		mode     record.Mode
		script   func(p *backendtest.Process)
		in       Input
		input    string
		signals  []syscall.Signal
		stdinEOF bool
		err      error
	}{
		{name: "pipe: ctrl+c signals the group", mode: record.ModePipe, in: Input{Text: "x", Keys: []string{"ctrl+c"}},
			input: "x", signals: []syscall.Signal{syscall.SIGINT}},
		{name: "pty: ctrl+c is a byte for the terminal", mode: record.ModePTY, in: Input{Keys: []string{"ctrl+c"}}, input: "\x03"},
		{name: "pipe: stdin_eof closes stdin", mode: record.ModePipe, in: Input{Text: "last", Enter: true, EOF: true},
			input: "last\n", stdinEOF: true},
		{name: "pipe: nobody reads stdin any more", mode: record.ModePipe, in: Input{Text: "x"},
			script: func(p *backendtest.Process) { p.Stall(false, noReader) }, err: ErrStdinClosed},
		{name: "a program that does not read", mode: record.ModePTY, in: Input{Text: "x"},
			script: func(p *backendtest.Process) { p.Stall(true, nil) }, err: ErrInputStalled},
		{name: "pipe: broken after exit", mode: record.ModePipe, in: Input{Text: "x"},
			script: func(p *backendtest.Process) { p.Stall(false, syscall.EPIPE); p.Exit(backend.Exit{Code: 1}) }, err: ErrExited},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sm := scripted(t, Config{NoScreen: true}, backendtest.Options{})
			s, p := sm.start(t, c.mode)
			if c.script != nil {
				c.script(p)
			}
			_, err := s.Send(c.in, time.Now().Add(50*time.Millisecond))
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("send: %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Input() != c.input || !slices.Equal(p.Signals(), c.signals) || p.StdinClosed() != c.stdinEOF {
				t.Fatalf("program took %q, signals %v, stdin closed %v; want %q, %v, %v",
					p.Input(), p.Signals(), p.StdinClosed(), c.input, c.signals, c.stdinEOF)
			}
		})
	}
}

// TestScripted_Terminate: terminate, delete and shutdown end the tree
// through the backend, with the grace each one asks for.
func TestScripted_Terminate(t *testing.T) {
	sm := scripted(t, Config{KillGrace: 3 * time.Second}, backendtest.Options{Host: "u@h:22"})
	s, p := sm.start(t, record.ModePTY)
	if s.Host() != "u@h:22" || s.Info().Host != "u@h:22" {
		t.Fatalf("host %q, info host %q; want the backend's", s.Host(), s.Info().Host)
	}
	st, err := s.Terminate(context.Background(), 2*time.Second)
	if err != nil || st.Signal != "SIGTERM" {
		t.Fatalf("terminate = %+v, %v; want SIGTERM", st, err)
	}
	if err := sm.Delete(s.ID); err != nil {
		t.Fatal(err)
	}
	if got := p.Terminations(); !slices.Equal(got, []time.Duration{2 * time.Second, 0}) || !p.Closed() {
		t.Fatalf("terminations %v, closed %v; want [2s 0] and closed", got, p.Closed())
	}
	if _, err := sm.Get(s.ID); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("deleted session: %v", err)
	}

	running, q := sm.start(t, record.ModePipe)
	sm.Close()
	if got := q.Terminations(); !slices.Equal(got, []time.Duration{3 * time.Second}) || !isDone(running.Done()) {
		t.Fatalf("shutdown terminations %v, done %v; want [3s] and done", got, isDone(running.Done()))
	}
}

// TestScripted_InputGateDelivered: on a local terminal (Delivered) a
// reader that ran after the write returned and waits on the input again
// in read, select or poll has seen all of it: the verdict is believed at
// the first look, with no hold. Every other case keeps the gate. The
// program's fingerprint moves at every look, so a verdict that needs the
// gate's hold never comes and the wait times out.
func TestScripted_InputGateDelivered(t *testing.T) {
	delivered := backend.InputWaits{Gated: true, Grace: time.Hour, ExactMarks: true, Delivered: true}
	stale := inputwait.Readers{IDs: 1, Runs: 10, Flushing: true}
	cases := []struct {
		name    string
		waits   backend.InputWaits
		after   inputwait.Readers // the readers the program shows once the write returned
		readers inputwait.Readers // and when the wait looks
		reason  Reason
	}{
		{"the reader ran since the write", delivered, stale, inputwait.Readers{IDs: 1, Runs: 11, Flushing: true}, ReasonAwaiting},
		{"the reader did not run since the write", delivered, stale, stale, ReasonTimeout},
		{"another reader", delivered, stale, inputwait.Readers{IDs: 2, Runs: 11, Flushing: true}, ReasonTimeout},
		{"the reader waits in epoll", delivered, stale, inputwait.Readers{IDs: 1, Runs: 11}, ReasonTimeout},
		{"nobody read right after the write", delivered, inputwait.Readers{}, inputwait.Readers{IDs: 1, Runs: 11, Flushing: true}, ReasonTimeout},
		{"not a local terminal", backend.InputWaits{Gated: true, Grace: time.Hour}, stale, inputwait.Readers{IDs: 1, Runs: 11, Flushing: true}, ReasonTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sm := scripted(t, Config{}, backendtest.Options{Waits: c.waits})
			s, p := sm.start(t, record.ModePTY)
			before := awaitingProbe(5)
			before.Readers = stale
			p.SetProbe(before, nil)
			p.OnWrite(func([]byte) {
				after := awaitingProbe(5)
				after.Readers = c.after
				p.SetProbe(after, nil)
			})
			if _, err := s.Send(Input{Text: "y", Enter: true}, time.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			p.SetProbeFunc(func(n int) inputwait.Probe {
				pr := awaitingProbe(uint64(100 + n))
				pr.Readers = c.readers
				return pr
			})
			mark := s.LastInput()
			res := s.Wait(context.Background(), 0, WaitOptions{Timeout: 100 * time.Millisecond, Input: &mark})
			if res.Reason != c.reason {
				t.Fatalf("wait = %+v, want %s", res, c.reason)
			}
		})
	}
}
