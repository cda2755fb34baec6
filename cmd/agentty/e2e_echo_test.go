package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// echoLoop is a program the echo tests type lines into: each line prints
// one value, then the program prompts again.
type echoLoop struct {
	name   string
	argv   []string
	mode   string
	env    map[string]string
	prompt string             // the prompt, as the clean output shows it
	line   func(i int) string // the line typed in round i; it prints i*7
	// redraw: a line typed while the terminal echoes it (the program is
	// between two reads) is drawn again after the prompt by the program's
	// line editor; only the terminal's echo is the echo left out.
	redraw bool
}

// TestSendInput_EchoNeverJoinsLines types 150 lines into REPLs through
// the MCP client, each reply ending at the line that holds the value
// (until "(^|\n)<value>(\r?\n|$)", settle_ms 0), so a reply often ends
// before the next prompt arrived and the next reply meets it. Every reply
// must be exactly what the terminal shows minus the typed line's echo: the
// value on a line of its own, never joined to a prompt, and no piece of a
// prompt whose start an earlier reply returned. On pipes nothing is
// echoed, and the reply is the program's output as written.
func TestSendInput_EchoNeverJoinsLines(t *testing.T) {
	const rounds = 150
	cases := []echoLoop{
		{name: "python pty", argv: []string{"python3", "-q"}, mode: "pty", prompt: ">>> ",
			line: func(i int) string { return fmt.Sprintf("print(%d*7)", i) }, redraw: true},
		{name: "python pipes", argv: []string{"python3", "-i", "-q"}, mode: "pipe", prompt: ">>> ",
			line: func(i int) string { return fmt.Sprintf("print(%d*7)", i) }},
		{name: "bash pty", argv: []string{"bash", "--norc", "--noprofile", "-i"}, mode: "pty", prompt: "$ ",
			env:  map[string]string{"PS1": "$ "},
			line: func(i int) string { return fmt.Sprintf("echo $((%d*7))", i) }, redraw: true},
		{name: "node pty", argv: []string{"node"}, mode: "pty", prompt: "> ",
			line: func(i int) string { return fmt.Sprintf("%d*7", i) }},
	}
	s := startServer(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.argv[0]); err != nil {
				t.Skipf("%s not installed (scripts/test installs it)", c.argv[0])
			}
			env := c.env
			if env == nil {
				env = map[string]string{}
			}
			var st readResult
			s.call("start_process", map[string]any{"argv": c.argv, "mode": c.mode, "env": env,
				"merge_stderr": c.mode == "pipe", "until": regexp.QuoteMeta(c.prompt) + "$"}, &st)
			if !strings.HasSuffix(st.Output, c.prompt) {
				t.Fatalf("start: %q, want it to end with the prompt %q", st.Output, c.prompt)
			}
			defer s.call("terminate_process", map[string]any{"session_id": st.SessionID, "force": true}, nil)
			m := echoModel{echoLoop: c, prev: c.prompt}
			early := 0 // replies that ended before the whole next prompt
			for i := 1; i <= rounds; i++ {
				var r readResult
				s.call("send_input", map[string]any{"session_id": st.SessionID, "text": c.line(i), "enter": true,
					"until": fmt.Sprintf(`(^|\n)%d(\r?\n|$)`, i*7), "settle_ms": 0, "timeout_ms": 20000}, &r)
				joined, err := m.next(i, r.Output)
				if err != nil {
					t.Errorf("round %d: %v", i, err)
				}
				// On pipes a prompt the reply had not returned precedes
				// the value on its line: until's line start does not match
				// there, and the wait ends when the program reads again.
				if want := map[bool]string{false: "matched", true: "awaiting_input"}[joined]; r.Reason != want {
					t.Errorf("round %d: reason %q, want %q (output %q)", i, r.Reason, want, r.Output)
				}
				if m.prev != c.prompt {
					early++
				}
			}
			t.Logf("%d of %d replies ended before the whole next prompt", early, rounds)
		})
	}
}

// echoModel knows how the previous reply ended, which decides what the
// next one may start with.
type echoModel struct {
	echoLoop
	// prev: what the previous reply ended with after its value's line:
	// a prefix of the prompt, or valueOpen when it ended inside the
	// value's line (the until's "$" matched before the line break came).
	prev string
}

const valueOpen = "\x00"

// next checks round i's reply and records how it ended; joined says the
// value followed a prompt on its line (pipes).
func (m *echoModel) next(i int, out string) (joined bool, err error) {
	v := strconv.Itoa(i * 7)
	lead := "" // the rest of the previous value's line
	if m.prev == valueOpen {
		lead = "\n"
	}
	var starts []string // what may precede the value
	switch {
	case m.mode == "pipe":
		// No echo: the prompt (or its rest) is written before the value
		// on the same line, as the program wrote it.
		if m.prev == valueOpen {
			starts = []string{m.prompt}
		} else {
			starts = []string{m.prompt[len(m.prev):]}
		}
	case m.prev == valueOpen || m.prev == "":
		// The prompt came after the last reply: it stays, on its own
		// line once the echo after it is left out.
		starts = []string{"", m.prompt + "\n"}
		if m.redraw {
			starts = append(starts, m.prompt+m.line(i)+"\n")
		}
	default:
		// The last reply had the prompt or its start: the rest of it
		// goes with the echo.
		starts = []string{""}
	}
	for _, s := range starts {
		rest, ok := strings.CutPrefix(out, lead+s+v)
		if !ok {
			continue
		}
		joined = m.mode == "pipe" && s != ""
		if rest == "" && !joined {
			m.prev = valueOpen
			return joined, nil
		}
		if q, ok := strings.CutPrefix(rest, "\n"); ok && strings.HasPrefix(m.prompt, q) {
			m.prev = q
			return joined, nil
		}
	}
	return false, fmt.Errorf("reply %q: want %q, then one of %q, then %q on its own line, then a prefix of the prompt %q (the previous reply ended with %q)",
		out, lead, starts, v, m.prompt, strings.ReplaceAll(m.prev, valueOpen, v))
}
