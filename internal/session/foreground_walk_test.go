package session

import (
	"reflect"
	"testing"
)

// fakeProcs is a process table for walkForeground.
type fakeProcs map[int]fakeProc

type fakeProc struct {
	pgid int
	comm string
	args []string
	kids []int
}

func (t fakeProcs) group(pid int) (int, string, bool) {
	p, ok := t[pid]
	return p.pgid, p.comm, ok
}
func (t fakeProcs) args(pid int) []string  { return t[pid].args }
func (t fakeProcs) children(pid int) []int { return t[pid].kids }

func TestWalkForeground_Trees(t *testing.T) {
	shell := fakeProc{pgid: 100, comm: "zsh", args: []string{"-zsh"}, kids: []int{200, 300}}
	table := fakeProcs{
		100: shell,
		200: {pgid: 200, comm: "python3", args: []string{"python3", "app.py"}, kids: []int{201}},
		201: {pgid: 200, comm: "sh", args: []string{"sh", "-c", "ls"}},
		// 300 ended between the listing and the look.
		900: {pgid: 900, comm: "elsewhere", args: []string{"elsewhere"}},
	}
	for _, c := range []struct {
		name string
		fg   int
		want Foreground
	}{
		{"the shell reads", 100, Foreground{PGID: 100, PID: 100, Comm: "zsh", Args: []string{"-zsh"}}},
		{"a job reads", 200, Foreground{PGID: 200, PID: 200, Comm: "python3", Args: []string{"python3", "app.py"}}},
		{"the reader is not below the root", 900, Foreground{PGID: 900, PID: 900, Comm: "elsewhere", Args: []string{"elsewhere"}}},
		{"the reader is gone", 999, Foreground{PGID: 999, PID: 999}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := Foreground{PGID: c.fg, PID: c.fg}
			walkForeground(&f, 100, table)
			c.want.Procs = []ProcArgs{
				{PID: 100, PGID: 100, Args: []string{"-zsh"}},
				{PID: 200, PGID: 200, Args: []string{"python3", "app.py"}},
				{PID: 201, PGID: 200, Args: []string{"sh", "-c", "ls"}},
			}
			if !reflect.DeepEqual(f, c.want) {
				t.Fatalf("walkForeground:\n got %+v\nwant %+v", f, c.want)
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		loop := fakeProcs{1: {pgid: 1, comm: "fork", kids: []int{1, 1}}}
		f := Foreground{PGID: 1, PID: 1}
		walkForeground(&f, 1, loop)
		if len(f.Procs) != maxForegroundProcs {
			t.Fatalf("a table that never ends gave %d processes, want the bound %d", len(f.Procs), maxForegroundProcs)
		}
	})
}
