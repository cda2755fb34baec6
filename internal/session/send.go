package session

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/keys"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/sigs"
)

// MaxInputBytes is the default cap on the input of one call
// (Config.MaxInputBytes).
const MaxInputBytes = 1 << 20

// Input is what an agent types: text, then named keys, then Enter; EOF ends
// the input (closes stdin in pipe mode, sends the terminal's EOF key on a PTY).
type Input struct {
	Text  string
	Keys  []string
	Enter bool
	EOF   bool
	// KeepEcho keeps the terminal's echo of a typed line in what reads
	// return (by default reads leave it out; see echo.go).
	KeepEcho bool
	// From names the sender (the MCP client) for the transcript.
	From string
	// Secret marks the text as a secret the person typed (not the agent):
	// the transcript keeps only its size, whatever the terminal's echo.
	Secret bool
}

// op is one step of delivering input: bytes, a signal, or closing stdin.
type op struct {
	data  string
	sig   syscall.Signal
	close bool
}

// pipeKeys are keys a terminal would turn into signals or end of input;
// with plain pipes agentty does what the terminal would have done.
var pipeKeys = map[string]op{
	"\x03": {sig: syscall.SIGINT},
	"\x1c": {sig: syscall.SIGQUIT},
	"\x1a": {sig: sigs.TSTP},
	"\x04": {close: true},
}

func (s *Session) plan(in Input) ([]op, int, error) {
	var ops []op
	var buf strings.Builder
	total := 0
	flush := func() {
		if buf.Len() > 0 {
			ops = append(ops, op{data: buf.String()})
			total += buf.Len()
			buf.Reset()
		}
	}
	buf.WriteString(in.Text)
	app := len(in.Keys) > 0 && s.appCursorKeys()
	for _, k := range in.Keys {
		b, err := keys.Bytes(k)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %v", ErrBadArgs, err)
		}
		if app {
			b = keys.Application(b)
		}
		if s.Mode == record.ModePipe {
			if o, ok := pipeKeys[b]; ok {
				flush()
				ops = append(ops, o)
				continue
			}
		}
		buf.WriteString(b)
	}
	if in.Enter {
		if s.Mode == record.ModePipe {
			buf.WriteByte('\n')
		} else {
			buf.WriteByte('\r')
		}
	}
	if in.EOF && s.Mode == record.ModePTY {
		buf.WriteByte(0x04) // VEOF: at the start of a line it ends the program's input
	}
	flush()
	if in.EOF && s.Mode == record.ModePipe {
		ops = append(ops, op{close: true})
	}
	if limit := s.mgr.cfg.MaxInputBytes; total > limit {
		return nil, 0, fmt.Errorf("%w: input is %d bytes; send at most %d per call (limit max-input-bytes), or write a file and have the program read it", ErrInputTooLarge, total, limit)
	}
	if len(ops) == 0 {
		return nil, 0, fmt.Errorf("%w: nothing to send; give text, keys, enter or stdin_eof", ErrBadArgs)
	}
	return ops, total, nil
}

// Send delivers input, giving up at deadline if the program stops reading.
// It returns how many bytes were written.
func (s *Session) Send(in Input, deadline time.Time) (int, error) {
	if isDone(s.done) {
		return 0, s.exitedErr()
	}
	if err := s.leaseErr(); err != nil {
		return 0, err
	}
	ops, _, err := s.plan(in)
	if err != nil {
		return 0, err
	}
	canon, err := s.checkLine(ops)
	if err != nil {
		return 0, err
	}
	s.touch()
	// Echo off with canonical input means a password prompt: the transcript
	// must not keep what is typed into it.
	secret := in.Secret
	// Only a local stdin pipe's unread input can be measured; every other
	// process gets the gate (InputWaits.Gated).
	iw := s.proc.InputWaits()
	var gateAt time.Time
	if iw.Gated {
		if p, err := s.proc.Inspect(); err == nil {
			gateAt = time.Now()
			s.mu.Lock()
			s.gate = inputGate{active: true, fp: p.Fingerprint, at: gateAt}
			s.mu.Unlock()
			secret = secret || p.State == inputwait.AwaitingPassword
		}
	}
	if iw.Delivered && !gateAt.IsZero() {
		defer s.noteDelivered(gateAt)
	}
	s.markInput(in, secret, canon != nil && canon.Echo)
	rec := s.mgr.cfg.Recorder
	written := 0
	for _, o := range ops {
		switch {
		// Each step is recorded before it happens, so the transcript
		// lists the input before the output it causes.
		case o.sig != 0:
			rec.Signaled(s.ID, signalName(o.sig))
			if err := s.proc.Signal(o.sig); err != nil {
				return written, err
			}
		case o.close:
			rec.Signaled(s.ID, "stdin closed")
			if err := s.proc.CloseStdin(); err != nil {
				return written, fmt.Errorf("close stdin: %w", err)
			}
		default:
			rec.Input(s.ID, []byte(o.data), secret, in.From)
			n, err := s.proc.Write([]byte(o.data), deadline)
			written += n
			s.wroteLine(canon, o.data[:n])
			if err != nil {
				return written, s.writeErr(err, written, len(o.data))
			}
		}
	}
	return written, nil
}

// noteDelivered records, for the input gate armed at gateAt, which threads
// wait on the input now that the write has returned (inputGate.after).
func (s *Session) noteDelivered(gateAt time.Time) {
	if s.flushInput(gateAt) {
		return // the gate opens on the first probe that sees the reader asleep
	}
	p, err := s.proc.Inspect()
	if err != nil || p.State == inputwait.Running {
		return
	}
	s.mu.Lock()
	if s.gate.active && s.gate.at.Equal(gateAt) {
		s.gate.after = p.Readers
	}
	s.mu.Unlock()
}

func (s *Session) writeErr(err error, written, want int) error {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("%w: wrote %d of %d bytes before the deadline; the program is busy or not reading stdin (read its output, or send keys ctrl+c)", ErrInputStalled, written, want)
	case errors.Is(err, backend.ErrStdinClosed):
		return fmt.Errorf("%w: stdin of session %s was closed with stdin_eof; no more input can be sent", ErrBadArgs, s.ID)
	case errors.Is(err, backend.ErrNoReader) && !isDone(s.done):
		return &StdinClosedError{ID: s.ID}
	case isDone(s.done) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.EIO):
		if s.Mode == record.ModePipe && errors.Is(err, syscall.EPIPE) {
			s.collectExit()
		}
		return s.exitedErr()
	}
	return fmt.Errorf("write input: %w", err)
}

// collectExit waits briefly for the exit status of a program whose stdin
// pipe broke with nobody reading it (a write can fail on the closed pipe
// before the exit is collected), so the error can say how it ended.
func (s *Session) collectExit() {
	t := time.NewTimer(exitCollect)
	defer t.Stop()
	select {
	case <-s.done:
	case <-t.C:
	}
}

// exitCollect bounds how long a failed write waits for the exit status of a
// process already seen exited.
const exitCollect = 2 * time.Second

func (s *Session) exitedErr() error {
	return &ExitedError{ID: s.ID, Status: s.Status()}
}
