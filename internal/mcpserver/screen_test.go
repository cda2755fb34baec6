package mcpserver

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

var update = flag.Bool("update", false, "rewrite the golden screens under testdata/screens")

// golden compares a rendered screen with testdata/screens/name.golden.
func golden(t *testing.T, name string, r ScreenResult) {
	t.Helper()
	got := strings.Join(r.Lines, "\n") + "\n"
	path := filepath.Join("testdata", "screens", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Fatalf("screen %s differs from %s:\n--- got ---\n%s--- want ---\n%s", name, path, got, want)
	}
}

func need(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed (as root, scripts/test installs it)", p)
		}
	}
}

// screen runs read_screen, which must succeed.
func (c *client) screen(id string, args map[string]any) ScreenResult {
	c.t.Helper()
	a := map[string]any{"session_id": id}
	for k, v := range args {
		a[k] = v
	}
	var r ScreenResult
	c.call("read_screen", a, &r)
	return r
}

// send runs send_input, which must succeed.
func (c *client) send(id string, args map[string]any) SendResult {
	c.t.Helper()
	a := map[string]any{"session_id": id}
	for k, v := range args {
		a[k] = v
	}
	var r SendResult
	c.call("send_input", a, &r)
	return r
}

func (c *client) stop(id string) {
	c.call("terminate_process", map[string]any{"session_id": id, "force": true}, nil)
}

// size is the terminal every screen test uses, so golden files match.
var size = map[string]any{"rows": 24, "cols": 80}

func with(base map[string]any, kv ...any) map[string]any {
	m := map[string]any{}
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func TestScreen_ProgressBarRendersAsOneLine(t *testing.T) {
	c := newClient(t, session.Config{})
	st := c.start(with(size, "command", `for i in 1 2 3 4 5 6 7 8 9 10; do printf '\rbuilding [%-10s] %d%%' "$(printf '#%.0s' $(seq $i))" $((i*10)); done; printf '\ndone\n'`))
	if st.State != "exited" {
		t.Fatalf("state %s, want exited", st.State)
	}
	r := c.screen(st.SessionID, nil)
	want := []string{"building [##########] 100%", "done"}
	if strings.Join(r.Lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("screen = %q, want %q", r.Lines, want)
	}
	if r.Reason != "exited" || r.AltScreen || r.Cursor.Row != 2 || r.Cursor.Col != 0 {
		t.Fatalf("reason=%s alt=%v cursor=%+v", r.Reason, r.AltScreen, r.Cursor)
	}
	golden(t, "progress", r)
}

func TestScreen_TerminalQueriesAreAnswered(t *testing.T) {
	need(t, "python3")
	c := newClient(t, session.Config{})
	st := c.start(with(size, "argv", []string{"python3", "testdata/cpr.py"}, "timeout_ms", 20000))
	if st.State != "exited" || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Fatalf("cpr.py did not finish: state=%s reason=%s output=%q", st.State, st.Reason, st.Output)
	}
	for _, want := range []string{"pos=1;4\n", "da=b'[?62;1;6;22c'\n"} {
		if !strings.Contains(st.Output, want) {
			t.Fatalf("output %q lacks %q", st.Output, want)
		}
	}
}

func TestScreen_Top(t *testing.T) {
	need(t, "top")
	c := newClient(t, session.Config{})
	t.Run("batch", func(t *testing.T) {
		// Batch mode prints every process: a 1000-row terminal keeps the
		// header on the screen, and the scrollback holds what scrolled off
		// on a machine with more processes than that.
		st := c.start(map[string]any{"argv": []string{"top", "-b", "-n1"}, "rows": 1000, "cols": 200, "timeout_ms": 20000})
		if st.State != "exited" || st.ExitCode == nil || *st.ExitCode != 0 {
			t.Fatalf("top -b -n1: state %s code %v", st.State, st.ExitCode)
		}
		r := c.screen(st.SessionID, map[string]any{"scrollback": 100})
		if r.AltScreen {
			t.Fatal("top -b used the alternate screen")
		}
		r.Lines = append(r.Scrollback, r.Lines...)
		checkTop(t, r)
	})
	t.Run("interactive", func(t *testing.T) {
		st := c.start(with(size, "argv", []string{"top", "-d", "1"}, "timeout_ms", 0))
		defer c.stop(st.SessionID)
		r := c.screen(st.SessionID, map[string]any{"until": `(?s)Tasks:.*PID`, "timeout_ms": 20000, "settle_ms": 0})
		if r.Reason != "matched" {
			t.Fatalf("reason %s; screen:\n%s", r.Reason, strings.Join(r.Lines, "\n"))
		}
		checkTop(t, r)
		if r.Cursor.Visible {
			t.Fatal("interactive top shows its cursor; it hides it")
		}
		s := c.send(st.SessionID, map[string]any{"text": "q", "timeout_ms": 20000})
		if s.State != "exited" {
			t.Fatalf("q: state %s", s.State)
		}
		if r := c.screen(st.SessionID, nil); r.AltScreen {
			t.Fatal("alternate screen still on after top quit")
		}
	})
}

func checkTop(t *testing.T, r ScreenResult) {
	t.Helper()
	if len(r.Lines) < 7 || !strings.HasPrefix(r.Lines[0], "top - ") || !strings.HasPrefix(r.Lines[1], "Tasks:") {
		t.Fatalf("no top header:\n%s", strings.Join(r.Lines, "\n"))
	}
	for _, l := range r.Lines {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "PID" && f[1] == "USER" {
			return
		}
	}
	t.Fatalf("no PID column:\n%s", strings.Join(r.Lines, "\n"))
}

func TestScreen_VimInsertAndWrite(t *testing.T) {
	need(t, "vim")
	c := newClient(t, session.Config{})
	file := filepath.Join(t.TempDir(), "notes.txt")
	st := c.start(with(size, "argv", []string{"vim", "-u", "NONE", "-N", "-i", "NONE", "-n", file}, "timeout_ms", 20000))
	defer c.stop(st.SessionID)
	if st.Reason != "awaiting_input" {
		t.Fatalf("vim start: reason %s", st.Reason)
	}
	r := c.screen(st.SessionID, map[string]any{"until": `notes\.txt`, "timeout_ms": 20000, "settle_ms": 0})
	if !r.AltScreen || r.Reason != "matched" {
		t.Fatalf("vim screen: alt=%v reason=%s\n%s", r.AltScreen, r.Reason, strings.Join(r.Lines, "\n"))
	}
	c.send(st.SessionID, map[string]any{"text": "i", "timeout_ms": 20000})
	lines := []string{"first line", "second line", "third line"}
	c.send(st.SessionID, map[string]any{"text": strings.Join(lines, "\r"), "timeout_ms": 20000})
	r = c.screen(st.SessionID, map[string]any{"until": `third line`, "timeout_ms": 20000, "settle_ms": 0})
	if r.Lines[len(r.Lines)-1] != "-- INSERT --" {
		t.Fatalf("no -- INSERT -- while inserting:\n%s", strings.Join(r.Lines, "\n"))
	}
	if r.Cursor.Row != 2 || r.Cursor.Col != len("third line") {
		t.Fatalf("cursor %+v, want row 2 col %d", r.Cursor, len("third line"))
	}
	golden(t, "vim-insert", r)
	c.send(st.SessionID, map[string]any{"keys": []string{"escape"}, "text": "", "timeout_ms": 20000})
	s := c.send(st.SessionID, map[string]any{"text": ":wq", "enter": true, "timeout_ms": 20000})
	if s.State != "exited" || s.ExitCode == nil || *s.ExitCode != 0 {
		t.Fatalf(":wq: state %s code %v", s.State, s.ExitCode)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(lines, "\n") + "\n"; string(got) != want {
		t.Fatalf("file = %q, want %q", got, want)
	}
}

func TestScreen_LessPagesAndQuits(t *testing.T) {
	need(t, "less", "bash", "seq")
	c := newClient(t, session.Config{})
	file := filepath.Join(t.TempDir(), "numbers.txt")
	var b strings.Builder
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	st := c.start(with(size, "argv", []string{"bash", "--norc", "--noprofile", "-i"}, "env", map[string]string{"PS1": "$ ", "LESS": ""}, "timeout_ms", 20000))
	defer c.stop(st.SessionID)
	c.send(st.SessionID, map[string]any{"text": "less " + file, "enter": true, "timeout_ms": 20000})
	r := c.screen(st.SessionID, map[string]any{"until": `line 23`, "timeout_ms": 20000, "settle_ms": 0})
	if !r.AltScreen || r.Lines[0] != "line 1" || r.Lines[22] != "line 23" {
		t.Fatalf("first page: alt=%v\n%s", r.AltScreen, strings.Join(r.Lines, "\n"))
	}
	var out ReadResult
	c.call("read_output", map[string]any{"session_id": st.SessionID, "timeout_ms": 0}, &out)
	if !out.TUI || !strings.Contains(out.Hint, "read_screen") {
		t.Fatalf("read_output in less: tui=%v hint=%q", out.TUI, out.Hint)
	}
	var info InfoResult
	c.call("get_session_info", map[string]any{"session_id": st.SessionID}, &info)
	if !info.TUI {
		t.Fatal("get_session_info: tui = false while less runs")
	}
	c.send(st.SessionID, map[string]any{"text": "G", "timeout_ms": 20000})
	r = c.screen(st.SessionID, map[string]any{"until": `line 500`, "timeout_ms": 20000, "settle_ms": 0})
	if r.Reason != "matched" || r.Lines[22] != "line 500" || r.Lines[0] != "line 478" {
		t.Fatalf("after G: reason %s\n%s", r.Reason, strings.Join(r.Lines, "\n"))
	}
	golden(t, "less-end", r)
	c.send(st.SessionID, map[string]any{"text": "q", "timeout_ms": 20000})
	r = c.screen(st.SessionID, map[string]any{"until": `(?m)^\$$`, "timeout_ms": 20000, "settle_ms": 0})
	if r.AltScreen || r.Reason != "matched" {
		t.Fatalf("after q: alt=%v reason=%s\n%s", r.AltScreen, r.Reason, strings.Join(r.Lines, "\n"))
	}
	if last := r.Lines[len(r.Lines)-1]; last != "$" || r.Cursor.Col != 2 {
		t.Fatalf("after q the prompt is not back: last row %q cursor %+v", last, r.Cursor)
	}
}

func TestScreen_CursesMenuFollowsArrows(t *testing.T) {
	need(t, "python3")
	c := newClient(t, session.Config{})
	st := c.start(with(size, "argv", []string{"python3", "testdata/menu.py"}, "timeout_ms", 20000))
	defer c.stop(st.SessionID)
	selected := func(r ScreenResult) string {
		for _, l := range r.Lines {
			if strings.HasPrefix(l, "  > ") {
				return l[4:]
			}
		}
		return ""
	}
	r := c.screen(st.SessionID, map[string]any{"until": `> apples`, "timeout_ms": 20000, "settle_ms": 0})
	if selected(r) != "apples" || r.Cursor.Row != 2 {
		t.Fatalf("start: selected %q cursor %+v\n%s", selected(r), r.Cursor, strings.Join(r.Lines, "\n"))
	}
	golden(t, "menu-start", r)
	for _, step := range []struct {
		keys []string
		want string
		row  int
	}{
		{[]string{"down"}, "bananas", 3},
		{[]string{"down", "down"}, "dates", 5},
		{[]string{"up"}, "cherries", 4},
	} {
		c.send(st.SessionID, map[string]any{"keys": step.keys, "timeout_ms": 20000})
		r = c.screen(st.SessionID, map[string]any{"until": `> ` + step.want, "timeout_ms": 20000, "settle_ms": 0})
		if selected(r) != step.want || r.Cursor.Row != step.row {
			t.Fatalf("after %v: selected %q cursor %+v, want %s at row %d\n%s", step.keys, selected(r), r.Cursor, step.want, step.row, strings.Join(r.Lines, "\n"))
		}
	}
	s := c.send(st.SessionID, map[string]any{"keys": []string{"enter"}, "timeout_ms": 20000})
	if s.State != "exited" || !strings.Contains(s.Output, "picked cherries") {
		t.Fatalf("enter: state %s output %q", s.State, s.Output)
	}
}

func TestScreen_ResizeRedraws(t *testing.T) {
	need(t, "less")
	c := newClient(t, session.Config{})
	file := filepath.Join(t.TempDir(), "numbers.txt")
	var b strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	st := c.start(with(size, "argv", []string{"less", file}, "env", map[string]string{"LESS": ""}, "timeout_ms", 20000))
	defer c.stop(st.SessionID)
	r := c.screen(st.SessionID, map[string]any{"until": `line 23`, "timeout_ms": 20000, "settle_ms": 0})
	if r.Rows != 24 || r.Cols != 80 || len(r.Lines) != 24 {
		t.Fatalf("before resize: %dx%d with %d lines", r.Cols, r.Rows, len(r.Lines))
	}
	var info InfoResult
	c.call("resize_pty", map[string]any{"session_id": st.SessionID, "rows": 10, "cols": 40}, &info)
	r = c.screen(st.SessionID, map[string]any{"until": `(?m)^line 9\n.*\z`, "timeout_ms": 20000, "settle_ms": 0})
	if r.Reason != "matched" || r.Rows != 10 || r.Cols != 40 || len(r.Lines) != 10 || r.Lines[0] != "line 1" || r.Lines[8] != "line 9" {
		t.Fatalf("after resize to 40x10: reason %s %dx%d\n%s", r.Reason, r.Cols, r.Rows, strings.Join(r.Lines, "\n"))
	}
}

func TestScreen_ChangedOnlyPerReader(t *testing.T) {
	need(t, "cat")
	c := newClient(t, session.Config{})
	st := c.start(with(size, "argv", []string{"cat"}, "timeout_ms", 20000))
	defer c.stop(st.SessionID)
	c.send(st.SessionID, map[string]any{"text": "one", "enter": true, "echo": true, "timeout_ms": 20000})
	first := c.screen(st.SessionID, map[string]any{"changed_only": true})
	if len(first.Changed) != 24 || first.Lines != nil {
		t.Fatalf("first look: %d changed rows, lines %q; want all 24 rows and no lines", len(first.Changed), first.Lines)
	}
	if first.Changed[0] != (ChangedRow{0, "one"}) || first.Changed[1] != (ChangedRow{1, "one"}) {
		t.Fatalf("first rows %+v", first.Changed[:2])
	}
	c.send(st.SessionID, map[string]any{"text": "two", "enter": true, "timeout_ms": 20000})
	r := c.screen(st.SessionID, map[string]any{"changed_only": true})
	if want := []ChangedRow{{2, "two"}, {3, "two"}}; !slices.Equal(r.Changed, want) {
		t.Fatalf("changed %+v, want %+v", r.Changed, want)
	}
	r = c.screen(st.SessionID, map[string]any{"changed_only": true, "timeout_ms": 0})
	if len(r.Changed) != 0 || !strings.HasPrefix(r.Text(), "(no rows changed)") {
		t.Fatalf("nothing new: %+v", r.Changed)
	}
	// Another reader has its own last screen.
	var reg ReaderResult
	c.call("register_reader", map[string]any{"session_id": st.SessionID}, &reg)
	r = c.screen(st.SessionID, map[string]any{"changed_only": true, "reader_id": reg.ReaderID})
	if len(r.Changed) != 24 {
		t.Fatalf("new reader sees %d changed rows, want 24", len(r.Changed))
	}
}

func TestScreen_Errors(t *testing.T) {
	c := newClient(t, session.Config{})
	pipe := c.start(map[string]any{"argv": []string{"cat"}, "mode": "pipe", "timeout_ms": 0})
	defer c.stop(pipe.SessionID)
	pty := c.start(map[string]any{"argv": []string{"cat"}, "timeout_ms": 0})
	defer c.stop(pty.SessionID)
	off := newClient(t, session.Config{NoScreen: true})
	offPTY := off.start(map[string]any{"argv": []string{"cat"}, "timeout_ms": 0})
	defer off.stop(offPTY.SessionID)
	cases := []struct {
		name string
		c    *client
		args map[string]any
		want string
	}{
		{"pipe session", c, map[string]any{"session_id": pipe.SessionID}, "read_output"},
		{"unknown session", c, map[string]any{"session_id": "s999"}, "list_sessions"},
		{"unknown reader", c, map[string]any{"session_id": pty.SessionID, "reader_id": 7}, "reader 7"},
		{"scrollback too large", c, map[string]any{"session_id": pty.SessionID, "scrollback": 5000}, "between 0 and 100"},
		{"bad regex", c, map[string]any{"session_id": pty.SessionID, "until": "("}, "RE2"},
		{"negative timeout", c, map[string]any{"session_id": pty.SessionID, "timeout_ms": -1}, "timeout_ms"},
		{"screens off", off, map[string]any{"session_id": offPTY.SessionID}, "turned off"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if msg := tc.c.toolError("read_screen", tc.args); !strings.Contains(msg, tc.want) {
				t.Fatalf("error %q does not mention %q", msg, tc.want)
			}
		})
	}
}
