package screen

import (
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// Real programs for TestScreen_MatchesTmux: each runs twice, on a PTY
// whose output feeds agentty's screen and in a tmux pane, with the same
// size, environment, files and keys; after each step both screens must
// settle on the same view.

type progStep struct {
	keys       string // bytes typed, the same on both sides
	rows, cols int    // if set, resize to this first
	until      string // both screens show this before they are compared
	exit       bool   // the program ends after these keys; the final screens are compared
}

type tmuxProgram struct {
	name       string
	rows, cols int
	files      map[string]string // created in the working directory
	argv       []string
	steps      []progStep
	// needs, if set, must succeed or the case is skipped (man pages are
	// left out of minimal images).
	needs []string
}

func numbered(n int, extra func(i int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d%s\n", i, extra(i))
	}
	return b.String()
}

var tmuxPrograms = []tmuxProgram{
	{name: "vim edit", rows: 24, cols: 80,
		files: map[string]string{"notes.txt": "plain text\n日本語の行 with wide text\ncafe\u0301 combining\n\ttabbed\n"},
		argv:  []string{"vim", "-u", "NONE", "-N", "-n", "-i", "NONE", "notes.txt"},
		steps: []progStep{
			{until: "notes.txt"},
			{keys: "Go新しい行 cafe\u0301 \u2764\ufe0f ok\x1b", until: "\u2764\ufe0f ok"},
			{keys: ":set nu\r", until: "  5 "},
			{keys: "ggx", until: "  1 lain"},
			{keys: ":q!\r", exit: true},
		}},
	{name: "less pages and search", rows: 43, cols: 132,
		files: map[string]string{"long.txt": numbered(300, func(i int) string {
			if i%7 == 0 {
				return " 漢字 " + strings.Repeat("wide ", i%30)
			}
			return strings.Repeat(" text", i%40)
		})},
		argv: []string{"less", "long.txt"},
		steps: []progStep{
			{until: "line 1 "},
			{keys: " ", until: "line 43"},
			{keys: "/line 150\r", until: "line 150"},
			{keys: "G", until: "(END)"},
			{keys: "q", exit: true},
		}},
	{name: "less resized", rows: 24, cols: 80,
		files: map[string]string{"long.txt": numbered(100, func(i int) string { return strings.Repeat(" 字x", i%50) })},
		argv:  []string{"less", "-S", "long.txt"},
		steps: []progStep{
			{until: "line 1 "},
			{rows: 43, cols: 132, until: "line 42"},
			{rows: 20, cols: 60, until: "line 19"},
			{keys: "q", exit: true},
		}},
	{name: "dialog menu", rows: 24, cols: 80,
		argv: []string{"dialog", "--menu", "Pick one", "15", "50", "4", "a", "Alpha", "b", "Beta 日本", "c", "Gamma"},
		steps: []progStep{
			{until: "Gamma"},
			{keys: "b", until: "Beta"},
			{keys: "\r", exit: true},
		}},
	{name: "whiptail yesno", rows: 24, cols: 80,
		argv: []string{"whiptail", "--yesno", "Proceed with the install?", "10", "50"},
		steps: []progStep{
			{until: "Proceed"},
			{keys: "\t", until: "Proceed"},
			{keys: "\r", exit: true},
		}},
	{name: "man page", rows: 24, cols: 80,
		argv:  []string{"man", "ls"},
		needs: []string{"man", "-w", "ls"},
		steps: []progStep{
			{until: "NAME"},
			{keys: " ", until: "--escape"},
			{keys: "q", exit: true},
		}},
}

func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

func runProgram(t *testing.T, known map[string]string, pr tmuxProgram) {
	if _, err := exec.LookPath(pr.argv[0]); err != nil {
		t.Skipf("%s not installed (.ci/run installs it)", pr.argv[0])
	}
	if pr.needs != nil {
		if err := exec.Command(pr.needs[0], pr.needs[1:]...).Run(); err != nil {
			t.Skipf("%q failed: %v", pr.needs, err)
		}
	}
	dir := t.TempDir()
	for name, content := range pr.files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8", "HOME=" + dir,
		"LESSHISTFILE=-", "MANPAGER=less", "PAGER=less"}

	// agentty's side: a PTY feeding the screen, answers to queries going back.
	cmd := exec.Command(pr.argv[0], pr.argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(pr.rows), Cols: uint16(pr.cols)})
	if err != nil {
		t.Fatal(err)
	}
	// The screen is lazy, as a session's is; an eager twin fed the same
	// bytes must end equal to it and have given the same answers.
	src, answered, eagerAnswered := &memSource{}, &replies{}, &replies{}
	s := newScreen(t, Options{Rows: pr.rows, Cols: pr.cols, Lazy: true, Source: src, Reply: func(p []byte) {
		answered.add(p)
		_, _ = ptmx.Write(p)
	}})
	eager := newScreen(t, Options{Rows: pr.rows, Cols: pr.cols, Reply: eagerAnswered.add})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			src.append(buf[:n])
			s.Write(buf[:n])
			eager.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		_ = ptmx.Close()
		<-drained
	})

	// tmux's side.
	sock := filepath.Join(dir, "tmux")
	pane := startTmux(t, sock, pr.rows, pr.cols, fmt.Sprintf("cd %s && env -i %s %s; tmux -S %s wait-for -S exited; exec sleep 86400",
		shellQuote([]string{dir}), shellQuote(env), shellQuote(pr.argv), sock))

	for i, st := range pr.steps {
		name := fmt.Sprintf("%s step %d", pr.name, i+1)
		if st.rows > 0 {
			if err := s.Resize(st.rows, st.cols); err != nil {
				t.Fatal(err)
			}
			if err := eager.Resize(st.rows, st.cols); err != nil {
				t.Fatal(err)
			}
			if err := pty.Setsize(ptmx, &pty.Winsize{Rows: uint16(st.rows), Cols: uint16(st.cols)}); err != nil {
				t.Fatal(err)
			}
			pane.rows, pane.cols = st.rows, st.cols
			pane.run("resize-window", "-x", strconv.Itoa(st.cols), "-y", strconv.Itoa(st.rows))
		}
		if st.keys != "" {
			if _, err := ptmx.Write([]byte(st.keys)); err != nil {
				t.Fatal(err)
			}
			pane.run(append([]string{"send-keys", "-H"}, hexKeys(st.keys)...)...)
		}
		if st.exit {
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				t.Fatalf("%s: %s did not exit", name, pr.argv[0])
			}
			<-drained
			pane.run("wait-for", "exited")
			check(t, known, pr.name+" after exit", viewOf(s.Snapshot(0)), pane.view())
			s.Close() // every answer delivered
			eager.Close()
			if a, b := s.StyledSnapshot(100), eager.StyledSnapshot(100); !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: lazy screen %+v, eager %+v", name, a, b)
			}
			if a, b := answered.String(), eagerAnswered.String(); a != b {
				t.Fatalf("%s: answers %q, eager screen's %q", name, a, b)
			}
			return
		}
		ours, theirs := settle(t, s, pane, st.until)
		check(t, known, name, ours, theirs)
		if !shows(ours, st.until) || !shows(theirs, st.until) {
			t.Fatalf("%s: %q did not appear\n--- agentty ---\n%s\n--- tmux ---\n%s", name, st.until, ours, theirs)
		}
	}
}

// hexKeys spells keys byte by byte for tmux send-keys -H, so tmux types
// exactly the bytes agentty's side gets.
func hexKeys(keys string) []string {
	parts := make([]string, len(keys))
	for i := range len(keys) {
		parts[i] = hex.EncodeToString([]byte{keys[i]})
	}
	return parts
}

// settle waits until both screens show until and agree, or a deadline
// passes (then the caller reports the difference). There is no event for
// "a program finished drawing" on either side, so it polls the condition.
func settle(t *testing.T, s *Screen, pane *tmuxPane, until string) (ours, theirs view) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ours, theirs = viewOf(s.Snapshot(0)), pane.view()
		if shows(ours, until) && shows(theirs, until) && ours.equal(theirs) || time.Now().After(deadline) {
			return ours, theirs
		}
		<-time.After(20 * time.Millisecond)
	}
}

func shows(v view, text string) bool {
	return strings.Contains(strings.Join(v.Lines, "\n"), text)
}

// caseNames are the names check is called with for a program.
func (pr tmuxProgram) caseNames() []string {
	var names []string
	for i, st := range pr.steps {
		if st.exit {
			names = append(names, pr.name+" after exit")
		} else {
			names = append(names, fmt.Sprintf("%s step %d", pr.name, i+1))
		}
	}
	return names
}
