package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/backend/backendtest"
	"github.com/agentty/agentty/internal/record"
)

// TestResize_RedrawAtOnce: a program that redraws the moment its terminal
// changes size (SIGWINCH), with a reader rendering the screen before
// Resize has returned, is drawn at the new size: the screen's resize is
// queued before the terminal's, so the redraw cannot come first.
func TestResize_RedrawAtOnce(t *testing.T) {
	cases := []struct {
		name       string
		rows, cols int
		redraw     func(rows, cols int) string
		want       []string
	}{
		{"wider", 4, 30, func(_, cols int) string { return strings.Repeat("#", cols) },
			[]string{strings.Repeat("#", 30), "", "", ""}},
		{"taller", 6, 20, func(rows, _ int) string {
			lines := make([]string, rows)
			for i := range lines {
				lines[i] = fmt.Sprint("line ", i+1)
			}
			return strings.Join(lines, "\r\n")
		}, []string{"line 1", "line 2", "line 3", "line 4", "line 5", "line 6"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sm := scripted(t, Config{}, backendtest.Options{})
			s, err := sm.Start(StartOptions{Argv: []string{"sh"}, Mode: record.ModePTY, Rows: 4, Cols: 20})
			if err != nil {
				t.Fatal(err)
			}
			p := <-sm.procs
			p.OnResize(func(rows, cols int) error {
				p.Print("\x1b[H\x1b[2J" + tc.redraw(rows, cols))
				if _, err := s.Screen(context.Background(), ScreenOptions{}); err != nil {
					t.Error(err)
				}
				return nil
			})
			if err := s.Resize(tc.rows, tc.cols); err != nil {
				t.Fatal(err)
			}
			r, err := s.Screen(context.Background(), ScreenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			snap := r.Snapshot
			if snap.Rows != tc.rows || snap.Cols != tc.cols || strings.Join(snap.Lines, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("screen %dx%d %q, want %dx%d %q", snap.Cols, snap.Rows, snap.Lines, tc.cols, tc.rows, tc.want)
			}
		})
	}
}

// TestResize_Refused: a size the terminal refuses leaves the screen at the
// terminal's size, though the screen's resize was queued first.
func TestResize_Refused(t *testing.T) {
	sm := scripted(t, Config{}, backendtest.Options{})
	s, err := sm.Start(StartOptions{Argv: []string{"sh"}, Mode: record.ModePTY, Rows: 4, Cols: 20})
	if err != nil {
		t.Fatal(err)
	}
	p := <-sm.procs
	refused := errors.New("scripted: the terminal refuses")
	p.OnResize(func(int, int) error {
		// A reader renders while the terminal is being asked.
		if _, err := s.Screen(context.Background(), ScreenOptions{}); err != nil {
			t.Error(err)
		}
		return refused
	})
	if err := s.Resize(8, 40); !errors.Is(err, refused) {
		t.Fatalf("resize: %v", err)
	}
	p.Print("after")
	r, err := s.Screen(context.Background(), ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rows, cols := s.Size(); r.Snapshot.Rows != 4 || r.Snapshot.Cols != 20 || rows != 4 || cols != 20 || r.Snapshot.Lines[0] != "after" {
		t.Fatalf("screen %dx%d %q, terminal %dx%d; want both 20x4", r.Snapshot.Cols, r.Snapshot.Rows, r.Snapshot.Lines, cols, rows)
	}
}
