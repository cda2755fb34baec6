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

	"github.com/agentty/agentty/internal/outlog"
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
	// atMark: the terminal echoed the line itself (canonical mode, echo
	// on), so the echo sits exactly where the input was written. Otherwise
	// the program echoes it, possibly after a prompt it writes first.
	atMark bool
}

const (
	// maxEchoes bounds the echoes remembered; older ones are long read.
	maxEchoes = 16
	// echoHold is how long a read may hold back the first part of an
	// echo, so the rest lands in the next read and both leave it out.
	echoHold = time.Second
	// maxEchoLead bounds what a program may write on the input's line
	// before echoing it (a line editor's prompt), and so the search.
	maxEchoLead = 1 << 10
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
// to expect; kernelEcho says the terminal echoes it (canonical, echo on). The kernel may still hold output the program wrote before:
// where Quiet is cheap (InputWaits.ExactMarks) it moves that output into
// the log first, so the mark is exact; otherwise the mark takes the log as
// it stands.
func (s *Session) markInput(in Input, secret, kernelEcho bool) {
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
		s.echoes = append(s.echoes, echo{at: m.At, text: t, sent: m.Time, atMark: kernelEcho})
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

// echoAt returns the echo expected at offset at, if any.
func (s *Session) echoAt(at int64) (echo, bool) {
	if es := s.echoesIn(at, at+1); len(es) > 0 {
		return es[0], true
	}
	return echo{}, false
}

// dropEchoes removes from text (the clean form of raw, which starts at log
// offset from) each expected echo on the line where its input was written:
// at that point, or after what the program wrote there since (a line
// editor prints its prompt, then the input). The echo's position is the
// length of the clean text before it; where cleaning is not stable across
// that point the echo is kept. Only the typed text goes: the line break
// goes with it when the echo is the whole line, and stays when a prompt or
// other output precedes it, so two lines are never joined. keep reports
// how many raw bytes the caller should consume when the text ends in the
// first part of an echo that is still arriving (-1: all).
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
		i, found, pending := echoOnLine(rest, e)
		switch {
		case found:
			text = cutEcho(text, len(before)+i, len(e.text)-1, func() bool { return !e.atMark && !s.lineStartsAt(from) })
		case pending && !final && time.Since(e.sent) < echoHold:
			text, keep = before, n
		}
	}
	return text, keep
}

// echoOnLine looks for e's line T on the first line of rest, the clean
// text from where the input was written: at its start when the terminal
// echoed it, else after at most maxEchoLead bytes (the prompt a line
// editor drew first) where T ends the line. found: T starts at i.
// pending: the line is not complete yet and ends in the first part of T,
// so the rest of the echo may still arrive.
func echoOnLine(rest string, e echo) (i int, found, pending bool) {
	line := e.text[:len(e.text)-1]
	lead := maxEchoLead
	if e.atMark {
		lead = 0
	}
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		i = nl - len(line)
		return i, i >= 0 && i <= lead && rest[i:nl] == line, false
	}
	for j := 0; j <= min(lead, len(rest)-1); j++ {
		if len(rest)-j <= len(line) && strings.HasPrefix(line, rest[j:]) {
			return 0, false, true
		}
	}
	return 0, false, false
}

// cutEcho removes the n bytes of typed text at i from text, where a line
// break follows them. The break goes too when nothing precedes the echo
// on its line. When midLine (text starts inside a line an earlier read
// returned the start of, and the program drew the echo itself), what
// precedes it on that first line is the rest of the prompt the program
// drew for the input: it goes with the echo, so no reply starts with a
// piece of a prompt.
func cutEcho(text string, i, n int, midLine func() bool) string {
	start, end := i, i+n
	ls := strings.LastIndexByte(text[:i], '\n') + 1
	switch {
	case ls == i:
		end++
	case ls == 0 && midLine():
		start, end = 0, end+1
	}
	return text[:start] + text[end:]
}

// lineStartsAt reports whether log offset off starts a line (or nothing
// before it is known).
func (s *Session) lineStartsAt(off int64) bool {
	if off == 0 {
		return true
	}
	sl := s.log.Read(off-1, -1, 1, outlog.Both)
	return sl.From != off-1 || len(sl.Data) == 0 || sl.Data[0] == '\n'
}
