package session

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/backend/backendtest"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/ttymode"
)

// TestEcho_LeftOutWithoutJoiningLines: a line is typed after a read that
// returned seen; the program writes before (output the input mark follows)
// and after. The next read leaves the typed line's echo out and keeps
// every line apart.
func TestEcho_LeftOutWithoutJoiningLines(t *testing.T) {
	editor := ttymode.Modes{}                              // raw: a line editor echoes
	terminal := ttymode.Modes{Canonical: true, Echo: true} // the terminal echoes
	cases := []struct {
		name         string
		termios      ttymode.Modes
		seen, before string // output read before the input; output after that read, before the input
		typed, after string
		want         string
	}{
		{name: "echo after a prompt already read", termios: editor,
			seen: "7\r\n>>> ", typed: "print(8*7)", after: "print(8*7)\r\n56\r\n>>> ",
			want: "56\n>>> "},
		{name: "prompt that came after the last read, before the input", termios: editor,
			seen: "7\r\n", before: ">>> ", typed: "print(8*7)", after: "print(8*7)\r\n56\r\n>>> ",
			want: ">>> \n56\n>>> "},
		{name: "prompt written after the input", termios: editor,
			seen: "7\r\n", typed: "print(8*7)", after: ">>> print(8*7)\r\n56\r\n>>> ",
			want: ">>> \n56\n>>> "},
		{name: "rest of a prompt whose start was read", termios: editor,
			seen: "7\r\n>>", before: ">", typed: "print(8*7)", after: " print(8*7)\r\n56\r\n>>> ",
			want: "56\n>>> "},
		{name: "column move standing for a prompt already read", termios: editor,
			seen: "7\r\n\x1b[1G\x1b[0J> ", typed: "8*7", after: "\x1b[3G8*7\r\r\n\x1b[33m56\x1b[39m\r\n\x1b[1G\x1b[0J> ",
			want: "56\n> "},
		{name: "empty line typed at a prompt", termios: editor,
			seen: "7\r\n", before: ">>> ", typed: "", after: "\r\n>>> ",
			want: ">>> \n>>> "},
		{name: "terminal echo, then the line editor's redraw", termios: terminal,
			seen: "7\r\n", typed: "print(8*7)", after: "print(8*7)\r\n>>> print(8*7)\r\n56\r\n>>> ",
			want: ">>> print(8*7)\n56\n>>> "},
		{name: "terminal echo ending a line an earlier read began", termios: terminal,
			seen: "35", typed: "print(6*7)", after: "print(6*7)\r\n\r\n>>> print(6*7)\r\n42\r\n",
			want: "\n>>> print(6*7)\n42\n"},
		{name: "terminal echo keeps output written before it on its line", termios: terminal,
			seen: "result:", before: " 35", typed: "x", after: "x\r\nnext\r\n",
			want: " 35\nnext\n"},
		{name: "output that ends with the typed text is not its echo", termios: terminal,
			seen: "Name? ", typed: "bob", after: "bob\r\nHello bob\r\n",
			want: "Hello bob\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			termios := c.termios
			sm := scripted(t, Config{}, backendtest.Options{Termios: &termios})
			s, p := sm.start(t, record.ModePTY)
			read := func() string {
				t.Helper()
				r, err := s.Read(context.Background(), Cursor{}, WaitOptions{}, ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return r.Output.Text
			}
			p.Print(c.seen)
			read()
			p.Print(c.before)
			if _, err := s.Send(Input{Text: c.typed, Enter: true}, time.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			p.Print(c.after)
			if got := read(); got != c.want {
				t.Errorf("read %q, want %q", got, c.want)
			}
		})
	}
}

// TestEcho_UntilSkipsTheEcho: a wait after input matches until against
// the output without the typed line's echo, also when the program drew a
// prompt before it.
func TestEcho_UntilSkipsTheEcho(t *testing.T) {
	for name, after := range map[string]string{
		"at the input":        "print(8*7)\r\n56\r\n",
		"after a prompt":      ">>> print(8*7)\r\n56\r\n",
		"after a column move": "\x1b[3Gprint(8*7)\r\r\n56\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			sm := scripted(t, Config{}, backendtest.Options{Termios: &ttymode.Modes{}})
			s, p := sm.start(t, record.ModePTY)
			p.Print("7\r\n")
			r, err := s.Read(context.Background(), Cursor{}, WaitOptions{}, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Send(Input{Text: "print(8*7)", Enter: true}, time.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			p.Print(after)
			mark := s.LastInput()
			w := s.Wait(context.Background(), r.Output.Next, WaitOptions{Until: regexp.MustCompile(`8\*7|56`), Input: &mark})
			if w.Reason != ReasonMatched || w.Match != "56" {
				t.Errorf("wait: %s %q, want matched %q", w.Reason, w.Match, "56")
			}
		})
	}
}

// TestUntil_InputMarkInsideALine: when a reply starts before the input
// mark and the mark is inside a line (a prompt arrived after the last
// read), until's ^ does not match at the mark: the value after the prompt
// is not at the start of a line of the reply. Once the echo that ended
// that line is left out, the next line starts one.
func TestUntil_InputMarkInsideALine(t *testing.T) {
	cases := []struct {
		name         string
		mode         record.Mode
		seen, before string
		after        string
		until        string
		reason       Reason
		match        string
	}{
		{name: "pipes: prompt not read yet", mode: record.ModePipe, seen: "7\n", before: ">>> ", after: "56\n>>> ",
			until: `^56$`, reason: ReasonNoWait},
		{name: "pipes: prompt read", mode: record.ModePipe, seen: "7\n>>> ", after: "56\n>>> ",
			until: `^56$`, reason: ReasonMatched, match: "56"},
		{name: "pipes: a match that spans the mark does not show the line's start", mode: record.ModePipe, seen: "7\n", before: ">>> ", after: "56\n",
			until: `.?56`, reason: ReasonMatched, match: "56"},
		{name: "terminal: the echo ends the prompt's line", mode: record.ModePTY, seen: "7\r\n", before: ">>> ", after: "print(8*7)\r\n56\r\n>>> ",
			until: `^56$`, reason: ReasonMatched, match: "56"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sm := scripted(t, Config{}, backendtest.Options{Termios: &ttymode.Modes{}})
			s, p := sm.start(t, c.mode)
			p.Print(c.seen)
			r, err := s.Read(context.Background(), Cursor{}, WaitOptions{}, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p.Print(c.before)
			if _, err := s.Send(Input{Text: "print(8*7)", Enter: true}, time.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			p.Print(c.after)
			mark := s.LastInput()
			w := s.Wait(context.Background(), r.Output.Next, WaitOptions{Until: regexp.MustCompile("(?m)" + c.until), Input: &mark})
			if w.Reason != c.reason || w.Match != c.match {
				t.Errorf("wait: %s %q, want %s %q", w.Reason, w.Match, c.reason, c.match)
			}
		})
	}
}
