package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/session"
)

// replyBytes is a read_screen reply as an agent pays for it: the text
// content and the structured content.
func replyBytes(t *testing.T, res *mcp.CallToolResult) (text string, structured []byte) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcp.TextContent).Text, b
}

func TestScreen_AttrsCursesMenu(t *testing.T) {
	need(t, "python3")
	c := newClient(t, session.Config{})
	st := c.start(with(size, "argv", []string{"python3", "testdata/menu.py"}, "timeout_ms", 20000))
	defer c.stop(st.SessionID)
	var r ScreenResult
	res := c.call("read_screen", map[string]any{"session_id": st.SessionID, "until": `> apples`, "timeout_ms": 20000, "settle_ms": 0, "attrs": true}, &r)
	// Python's curses.wrapper starts colours without use_default_colors:
	// ncurses sets white on black and clears the screen with it, so the
	// whole screen is black (the base) and the text white on it.
	const text0 = "fg=white bg=black"
	want := []RowAttrs{{Row: 0, Runs: []Run{{0, 29, text0}}}, {Row: 2, Runs: []Run{{2, 8, "reverse " + text0}}}}
	for i, item := range []string{"bananas", "cherries", "dates"} {
		// The erased "  " before an item is not drawn again.
		want = append(want, RowAttrs{Row: 3 + i, Runs: []Run{{4, len(item), text0}}})
	}
	if r.AttrsBase != "bg=black" || !reflect.DeepEqual(r.Attrs, want) {
		t.Fatalf("base %q attrs %+v\nwant base bg=black attrs %+v", r.AttrsBase, r.Attrs, want)
	}
	golden(t, "menu-start", r) // the lines are the same as without attrs
	text, js := replyBytes(t, res)
	if !strings.Contains(text, "\nattrs base: bg=black (cells below differ)\nattrs row 0: 0+29 fg=white bg=black\n"+
		"attrs row 2: 2+8 reverse fg=white bg=black\nattrs row 3: 4+7 fg=white bg=black\n") {
		t.Fatalf("text reply lacks the attrs lines:\n%s", text)
	}
	if !strings.Contains(string(js), `{"row":2,"runs":[[2,8,"reverse fg=white bg=black"]]}`) || !strings.Contains(string(js), `"attrs_base":"bg=black"`) {
		t.Fatalf("structured reply: %s", js)
	}
	t.Logf("with attrs: text reply\n%s\nstructured %s", text, js)
	t.Logf("with attrs: text %d bytes, structured %d bytes", len(text), len(js))

	// Without attrs nothing about styles is said.
	var plain ScreenResult
	res = c.call("read_screen", map[string]any{"session_id": st.SessionID, "timeout_ms": 0}, &plain)
	text, js = replyBytes(t, res)
	if plain.Attrs != nil || strings.Contains(text, "attrs") || strings.Contains(string(js), "attrs") {
		t.Fatalf("default reply mentions attrs:\n%s\n%s", text, js)
	}
	t.Logf("without attrs: text reply\n%s\nstructured %s", text, js)

	for _, step := range []struct {
		keys []string
		want string
		sel  int
	}{
		{[]string{"down"}, "bananas", 1},
		{[]string{"down", "down"}, "dates", 3},
		{[]string{"up"}, "cherries", 2},
	} {
		c.send(st.SessionID, map[string]any{"keys": step.keys, "timeout_ms": 20000})
		r = c.screen(st.SessionID, map[string]any{"until": `> ` + step.want, "timeout_ms": 20000, "settle_ms": 0, "attrs": true})
		// Which blanks curses redraws in white on black depends on the
		// screen before, so the reversed run is checked: exactly one, the
		// highlighted item's.
		want := []string{fmt.Sprint(2+step.sel, Run{2, len("> " + step.want), "reverse " + text0})}
		var reversed []string
		for _, a := range r.Attrs {
			for _, run := range a.Runs {
				if strings.Contains(run.Style, "reverse") {
					reversed = append(reversed, fmt.Sprint(a.Row, run))
				}
			}
		}
		if r.AttrsBase != "bg=black" || !reflect.DeepEqual(reversed, want) {
			t.Fatalf("after %v: base %q, reversed runs %q, want %q; attrs %+v\n%s", step.keys, r.AttrsBase, reversed, want, r.Attrs, strings.Join(r.Lines, "\n"))
		}
	}
}

func TestScreen_AttrsSGR(t *testing.T) {
	need(t, "bash")
	c := newClient(t, session.Config{})
	cases := []struct {
		name, printf string
		want         []Run
	}{
		{"one attribute each",
			`\e[1mB\e[0m \e[4mU\e[0m \e[31mR\e[0m \e[48;5;236mX\e[0m \e[38;2;255;135;0mT\e[0m \e[7mV\e[0m`,
			[]Run{{0, 1, "bold"}, {2, 1, "underline"}, {4, 1, "fg=red"}, {6, 1, "bg=236"}, {8, 1, "fg=#ff8700"}, {10, 1, "reverse"}}},
		{"combined and bright",
			`ab\e[1;3;9;91;44mcombo\e[0m`,
			[]Run{{2, 5, "bold italic strike fg=bright_red bg=blue"}}},
		{"palette 0-15 are the ANSI colours; 24-bit bg",
			`\e[38;5;1mr\e[38;5;12mb\e[0m\e[48;2;0;0;0m  \e[0m`,
			[]Run{{0, 1, "fg=red"}, {1, 1, "fg=bright_blue"}, {2, 2, "bg=#000000"}}},
		{"equal styles merge across sequences",
			`\e[1mab\e[22m\e[1mcd\e[0mef\e[4:3mgh\e[58;5;9mij`,
			[]Run{{0, 4, "bold"}, {6, 2, "underline=curly"}, {8, 2, "underline=curly ul=bright_red"}}},
		{"wide characters count two columns",
			`\e[7m日本\e[0m!`,
			[]Run{{0, 4, "reverse"}}},
		{"a painted screen is the base; unstyled cells differ from it",
			`\e[44m\e[2J\e[H\e[0mplain\e[44m \e[1mbold`,
			[]Run{{0, 5, "default"}, {6, 4, "bold bg=blue"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := c.start(with(size, "argv", []string{"bash", "-c", fmt.Sprintf(`printf '%s\n'`, tc.printf)}, "timeout_ms", 20000))
			if st.State != "exited" {
				t.Fatalf("state %s", st.State)
			}
			r := c.screen(st.SessionID, map[string]any{"attrs": true})
			base := ""
			if strings.Contains(tc.printf, `\e[2J`) {
				base = "bg=blue"
			}
			if want := []RowAttrs{{Row: 0, Runs: tc.want}}; r.AttrsBase != base || !reflect.DeepEqual(r.Attrs, want) {
				t.Fatalf("base %q attrs %+v\nwant %q %+v\nscreen %q", r.AttrsBase, r.Attrs, base, want, r.Lines)
			}
		})
	}
}

// A screen where every other cell is bold is 100 runs per row at 200
// columns: each row reports 20 and counts the rest.
func TestScreen_AttrsBounded(t *testing.T) {
	need(t, "python3")
	c := newClient(t, session.Config{})
	prog := `import sys
row = "\x1b[1mx\x1b[0my" * 100
sys.stdout.write("\x1b[H" + "\r\n".join([row] * 60))
sys.stdout.flush()
sys.stdin.readline()`
	st := c.start(map[string]any{"argv": []string{"python3", "-c", prog}, "rows": 60, "cols": 200, "timeout_ms": 0})
	defer c.stop(st.SessionID)
	var r ScreenResult
	res := c.call("read_screen", map[string]any{"session_id": st.SessionID, "timeout_ms": 20000, "settle_ms": 0, "attrs": true}, &r)
	if r.Reason != "awaiting_input" || len(r.Attrs) != 60 {
		t.Fatalf("reason %s, %d styled rows, want 60", r.Reason, len(r.Attrs))
	}
	for _, a := range r.Attrs {
		if len(a.Runs) != maxRunsPerRow || a.More != 80 || a.Runs[19] != (Run{38, 1, "bold"}) {
			t.Fatalf("row %d: %d runs, more %d, last %v; want 20, 80, [38 1 bold]", a.Row, len(a.Runs), a.More, a.Runs[len(a.Runs)-1])
		}
	}
	text, js := replyBytes(t, res)
	if !strings.Contains(text, "attrs row 59: 0+1 bold; 2+1 bold;") || !strings.Contains(text, "; (+80 runs)\n") {
		t.Fatalf("text reply does not show the cap:\n%s", text[len(text)-600:])
	}
	// The lines alone are 2 x 12 KB (text and structured); the runs add
	// at most 60 x 20 of about 14 bytes to each.
	if total := len(text) + len(js); total > 64<<10 {
		t.Fatalf("reply is %d bytes, want at most 64 KiB", total)
	}
	t.Logf("200x60 alternating styles: text %d bytes, structured %d bytes", len(text), len(js))
}

// A style change alone (a highlight that moves without the text moving)
// counts as a change for changed_only with attrs.
func TestScreen_AttrsChangedOnly(t *testing.T) {
	need(t, "bash")
	c := newClient(t, session.Config{})
	st := c.start(with(size, "argv", []string{"bash", "-c", `stty -echo; printf '\e[7mitem\e[0m\nplain'; read x; printf '\e[H\e[1mitem\e[0m'; read x`}, "timeout_ms", 20000))
	defer c.stop(st.SessionID)
	r := c.screen(st.SessionID, map[string]any{"changed_only": true, "attrs": true})
	if len(r.Changed) != 24 || !reflect.DeepEqual(r.Attrs, []RowAttrs{{Row: 0, Runs: []Run{{0, 4, "reverse"}}}}) {
		t.Fatalf("first look: %d changed, attrs %+v", len(r.Changed), r.Attrs)
	}
	c.send(st.SessionID, map[string]any{"text": "", "enter": true, "timeout_ms": 20000})
	r = c.screen(st.SessionID, map[string]any{"changed_only": true, "attrs": true})
	if !reflect.DeepEqual(r.Changed, []ChangedRow{{0, "item"}}) || !reflect.DeepEqual(r.Attrs, []RowAttrs{{Row: 0, Runs: []Run{{0, 4, "bold"}}}}) {
		t.Fatalf("after restyle: changed %+v attrs %+v", r.Changed, r.Attrs)
	}
	// Without attrs the text alone is compared, and it did not change.
	r = c.screen(st.SessionID, map[string]any{"changed_only": true, "timeout_ms": 0})
	if len(r.Changed) != 0 || r.Attrs != nil {
		t.Fatalf("plain read after styled: changed %+v attrs %+v", r.Changed, r.Attrs)
	}
}
