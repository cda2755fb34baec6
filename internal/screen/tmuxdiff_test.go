package screen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The differential test: the same output rendered by agentty's screen and
// by tmux, an independent terminal emulator, must give the same rows,
// cursor and alternate-screen state. Where tmux is the one that is wrong
// by xterm's documented behaviour (ctlseqs), testdata/tmuxdiff/known.txt
// lists the case with the reason; such a case must still differ, so the
// list stays true. Scripts come from testdata/tmuxdiff/scripts.txt, real
// programs from tmuxPrograms (tmuxprog_test.go).

// tmuxPane is a tmux server on a private socket with one pane.
type tmuxPane struct {
	t          *testing.T
	sock       string
	rows, cols int
}

// startTmux starts a detached tmux server on socket sock with a pane of
// the given size running cmd (with the default shell), and stops it at
// cleanup.
func startTmux(t *testing.T, sock string, rows, cols int, cmd string) *tmuxPane {
	t.Helper()
	p := &tmuxPane{t: t, sock: sock, rows: rows, cols: cols}
	p.run("-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", p.sock, "kill-server").Run() })
	return p
}

func (p *tmuxPane) run(args ...string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-S", p.sock}, args...)...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		p.t.Fatalf("tmux %q: %v", args, err)
	}
	return string(out)
}

// view is what both sides are compared on.
type view struct {
	Lines  []string // trailing blanks trimmed, empty rows at the bottom dropped
	Row    int
	Col    int
	Alt    bool
	Hidden bool
}

func (v view) String() string {
	return fmt.Sprintf("cursor %d,%d alt %v\n%s", v.Row, v.Col, v.Alt, strings.Join(v.Lines, "|\n")+"|")
}

func (v view) equal(o view) bool {
	return slices.Equal(v.Lines, o.Lines) && v.Row == o.Row && v.Col == o.Col && v.Alt == o.Alt
}

func viewOf(sn Snapshot) view {
	return view{Lines: TrimBottom(sn.Lines), Row: sn.Cursor.Row, Col: sn.Cursor.Col, Alt: sn.AltScreen}
}

// xtermGraphics is xterm's DEC special graphics set, for the cells tmux
// marks as line drawing (capture-pane -e shows them between SO and SI).
var xtermGraphics = map[rune]string{
	'`': "◆", 'a': "▒", 'b': "␉", 'c': "␌", 'd': "␍", 'e': "␊", 'f': "°", 'g': "±",
	'h': "␤", 'i': "␋", 'j': "┘", 'k': "┐", 'l': "┌", 'm': "└", 'n': "┼", 'o': "⎺",
	'p': "⎻", 'q': "─", 'r': "⎼", 's': "⎽", 't': "├", 'u': "┤", 'v': "┴", 'w': "┬",
	'x': "│", 'y': "≤", 'z': "≥", '{': "π", '|': "≠", '}': "£", '~': "·",
}

var captureEscape = regexp.MustCompile(`\x1b\[[0-9;:]*[a-zA-Z]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)`)

// view captures the pane.
func (p *tmuxPane) view() view {
	raw := p.run("capture-pane", "-p", "-e")
	lines := strings.Split(strings.TrimSuffix(raw, "\n"), "\n")
	acs := false // tmux shifts once for a run of line drawing, across rows
	for i, l := range lines {
		l = captureEscape.ReplaceAllString(l, "")
		var b strings.Builder
		for _, r := range l {
			switch {
			case r == 0x0e:
				acs = true
			case r == 0x0f:
				acs = false
			case acs && xtermGraphics[r] != "":
				b.WriteString(xtermGraphics[r])
			default:
				b.WriteRune(r)
			}
		}
		lines[i] = strings.TrimRight(b.String(), " ")
	}
	var v view
	v.Lines = TrimBottom(lines)
	f := strings.Fields(p.run("display", "-p", "#{cursor_x} #{cursor_y} #{alternate_on}"))
	if len(f) != 3 {
		p.t.Fatalf("tmux display: %q", f)
	}
	v.Col, _ = strconv.Atoi(f[0])
	v.Row, _ = strconv.Atoi(f[1])
	v.Alt = f[2] == "1"
	// tmux shows a pending wrap as the column past the last.
	v.Col = min(v.Col, p.cols-1)
	return v
}

type script struct {
	name       string
	rows, cols int
	data       string
}

func loadScripts(t *testing.T) []script {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "tmuxdiff", "scripts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []script
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, "\t", 3)
		if len(fields) != 3 {
			t.Fatalf("scripts.txt:%d: want name, size and script separated by tabs", n)
		}
		var s script
		s.name = fields[0]
		if _, err := fmt.Sscanf(fields[1], "%dx%d", &s.cols, &s.rows); err != nil {
			t.Fatalf("scripts.txt:%d: size %q: %v", n, fields[1], err)
		}
		if s.data, err = strconv.Unquote(fields[2]); err != nil {
			t.Fatalf("scripts.txt:%d: script: %v", n, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// loadKnown reads known.txt: name, a tab, and why tmux is wrong there.
func loadKnown(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tmuxdiff", "known.txt"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]string{}
	for n, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(reason) == "" {
			t.Fatalf("known.txt:%d: want a name, a tab and the reason", n+1)
		}
		known[name] = reason
	}
	return known
}

func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (.ci/run installs it)")
	}
}

// check compares the two views, as the known list says they should.
func check(t *testing.T, known map[string]string, name string, ours, theirs view) {
	t.Helper()
	reason, isKnown := known[name]
	switch {
	case isKnown && ours.equal(theirs):
		t.Errorf("%s: listed in known.txt (%s) but agentty and tmux now agree; remove it", name, reason)
	case !isKnown && !ours.equal(theirs):
		t.Errorf("%s: agentty and tmux differ\n--- agentty ---\n%s\n--- tmux ---\n%s", name, ours, theirs)
	case isKnown:
		t.Logf("%s: known difference: %s", name, reason)
	}
}

func TestScreen_MatchesTmux(t *testing.T) {
	needTmux(t)
	known := loadKnown(t)
	scripts := loadScripts(t)
	corpus := map[string]bool{}
	for _, sc := range scripts {
		corpus[sc.name] = true
	}
	for _, pr := range tmuxPrograms {
		for _, n := range pr.caseNames() {
			corpus[n] = true
		}
	}
	for name := range known {
		if !corpus[name] {
			t.Errorf("known.txt lists %q, which is not in the corpus", name)
		}
	}
	t.Run("scripts", func(t *testing.T) {
		for _, sc := range scripts {
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				file := filepath.Join(dir, "script")
				if err := os.WriteFile(file, []byte(sc.data), 0o600); err != nil {
					t.Fatal(err)
				}
				sock := filepath.Join(dir, "tmux")
				// No output processing: the pane gets the bytes as they are.
				pane := startTmux(t, sock, sc.rows, sc.cols, fmt.Sprintf(
					"stty -opost -echo; cat %s; tmux -S %s wait-for -S fed; exec sleep 86400", file, sock))
				s := newScreen(t, Options{Rows: sc.rows, Cols: sc.cols})
				s.Write([]byte(sc.data))
				pane.run("wait-for", "fed")
				check(t, known, sc.name, viewOf(s.Snapshot(0)), pane.view())
			})
		}
	})
	t.Run("programs", func(t *testing.T) {
		for _, pr := range tmuxPrograms {
			t.Run(pr.name, func(t *testing.T) {
				t.Parallel()
				runProgram(t, known, pr)
			})
		}
	})
}
