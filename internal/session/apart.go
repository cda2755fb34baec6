package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/inputwait"
)

// SendApart types in as Send does, but its keys (and Enter) one at a time:
// each after the program has taken the one before, run, and blocked
// reading its input again. Programs that discard pending input after each
// key (curses flushinp, tcflush(TCIFLUSH): ranger's flushinput) lose keys
// that arrive together; an empty input queue alone is not enough for them,
// as they flush after handling the key they read. It returns the bytes
// written; a wait that ends otherwise (the deadline, an exit) stops it.
func (s *Session) SendApart(ctx context.Context, in Input, deadline time.Time) (int, error) {
	parts := apart(in)
	if len(parts) > 1 {
		// Without the kernel's verdict there is nothing to wait for.
		if _, err := s.proc.Inspect(); errors.Is(err, inputwait.ErrNoVerdict) {
			return 0, fmt.Errorf("%w: keys_apart needs to see the program wait for input, which this session's platform does not show; send one key per call", ErrBadArgs)
		}
	}
	written := 0
	for i, p := range parts {
		if i > 0 {
			mark := s.LastInput()
			r := s.Wait(ctx, s.OutputEnd(), WaitOptions{Timeout: time.Until(deadline), Input: &mark})
			switch r.Reason {
			case ReasonAwaiting:
			case ReasonExited:
				return written, s.exitedErr()
			case ReasonCancelled:
				return written, ctx.Err()
			default:
				return written, fmt.Errorf("%w: sent %d of %d keys; the program did not wait for input again before the deadline (%s)", ErrInputStalled, i, len(parts), r.Detail)
			}
		}
		n, err := s.Send(p, deadline)
		written += n
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// apart splits in into the inputs SendApart sends one by one: the text with
// the first key, every further key, then Enter; EOF goes with the last.
func apart(in Input) []Input {
	base := Input{KeepEcho: in.KeepEcho, From: in.From, Secret: in.Secret}
	var parts []Input
	if in.Text != "" || len(in.Keys) > 0 {
		first := base
		first.Text = in.Text
		if len(in.Keys) > 0 {
			first.Keys = in.Keys[:1]
		}
		parts = append(parts, first)
	}
	for i := 1; i < len(in.Keys); i++ {
		p := base
		p.Keys = in.Keys[i : i+1]
		parts = append(parts, p)
	}
	if in.Enter {
		p := base
		p.Enter = true
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return []Input{in} // Send says what is missing, or sends only EOF
	}
	parts[len(parts)-1].EOF = in.EOF
	return parts
}
