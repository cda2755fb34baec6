package session

// Input marks and typed-line echoes.
//
// A wait that follows input must end on what the program did after it saw
// the input, so Send records where the output stood when the input was
// written (InputMark). A terminal echoes a typed line back into the output;
// the agent knows what it typed, so reads leave that echo out wherever it
// lands: in the reply, or in a later read when the reply was not waited for.

import (
	"strings"
	"time"

	"github.com/agentty/agentty/internal/record"
)

// InputMark is where the output stood when input was written.
type InputMark struct {
	At   int64     // log offset: output from here on came after the input
	Time time.Time // when the input was written
}

// echo is a typed line whose terminal echo is expected at offset at.
type echo struct {
	at   int64
	text string // clean text of the echo: the line and "\n"
	sent time.Time
}

const (
	// maxEchoes bounds the echoes remembered; older ones are long read.
	maxEchoes = 16
	// echoHold is how long a read may hold back the first part of an
	// echo, so the rest lands in the next read and both leave it out.
	echoHold = time.Second
)

// echoText is the clean echo of a line typed with Enter, or "" when the
// line has keys or control characters whose echo is not the text itself.
func echoText(in Input) (string, bool) {
	if !in.Enter || len(in.Keys) > 0 || in.EOF || in.KeepEcho {
		return "", false
	}
	for i := 0; i < len(in.Text); i++ {
		if c := in.Text[i]; c < 0x20 || c == 0x7f {
			return "", false
		}
	}
	return in.Text + "\n", true
}

// markInput records that input is written now and, on a terminal, the echo
// to expect. The kernel may still hold output the program wrote before:
// where Quiet is cheap (InputWaits.ExactMarks) it moves that output into
// the log first, so the mark is exact; otherwise the mark takes the log as
// it stands.
func (s *Session) markInput(in Input, secret bool) {
	if s.proc.InputWaits().ExactMarks {
		s.proc.Quiet()
	}
	m := InputMark{At: s.log.Stats().End, Time: time.Now()}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastInput = m
	if t, ok := echoText(in); ok && s.Mode == record.ModePTY && !secret {
		if len(s.echoes) == maxEchoes {
			s.echoes = append(s.echoes[:0], s.echoes[1:]...)
		}
		s.echoes = append(s.echoes, echo{at: m.At, text: t, sent: m.Time})
	}
}

// LastInput returns the mark of the last input Send wrote.
func (s *Session) LastInput() InputMark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastInput
}

// echoesIn returns the expected echoes at offsets in [from, to), newest first.
func (s *Session) echoesIn(from, to int64) []echo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []echo
	for i := len(s.echoes) - 1; i >= 0; i-- {
		if e := s.echoes[i]; e.at >= from && e.at < to {
			out = append(out, e)
		}
	}
	return out
}

// echoAt returns the echo expected exactly at offset at, or "".
func (s *Session) echoAt(at int64) string {
	if es := s.echoesIn(at, at+1); len(es) > 0 {
		return es[0].text
	}
	return ""
}

// dropEchoes removes from text (the clean form of raw, which starts at log
// offset from) each expected echo that sits exactly where its input was
// written. The echo's position is the length of the clean text before it;
// where cleaning is not stable across that point the echo is kept. keep
// reports how many raw bytes the caller should consume when the text ends
// in the first part of an echo that is still arriving (-1: all).
func (s *Session) dropEchoes(text string, raw []byte, from int64, final bool) (string, int) {
	keep := -1
	for _, e := range s.echoesIn(from, from+int64(len(raw))+1) {
		n := int(e.at - from)
		if n > len(raw) {
			continue
		}
		before, _ := clean(raw[:n], true, false)
		if !strings.HasPrefix(text, before) {
			continue
		}
		rest := text[len(before):]
		switch {
		case strings.HasPrefix(rest, e.text):
			text = before + rest[len(e.text):]
		case rest != "" && strings.HasPrefix(e.text, rest) && !final && time.Since(e.sent) < echoHold:
			text, keep = before, n
		}
	}
	return text, keep
}
