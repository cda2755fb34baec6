package files

import (
	"errors"
	"testing"
)

func TestResolve_WindowsPaths(t *testing.T) {
	const base = `C:\Users\ann\project`
	cases := []struct {
		p, want string
		err     error
	}{
		{`notes.txt`, `C:\Users\ann\project\notes.txt`, nil},
		{`sub\notes.txt`, `C:\Users\ann\project\sub\notes.txt`, nil},
		{`D:\data\notes.txt`, `D:\data\notes.txt`, nil},
		{`d:/data/notes.txt`, `d:/data/notes.txt`, nil},
		{`\tmp\notes.txt`, `C:\tmp\notes.txt`, nil},
		{`\\server\share\notes.txt`, `\\server\share\notes.txt`, nil},
		{`//server/share/notes.txt`, `//server/share/notes.txt`, nil},
		{`\\?\C:\very\long\notes.txt`, `\\?\C:\very\long\notes.txt`, nil},
		{`D:notes.txt`, "", ErrDriveRelative},
		{`D:`, "", ErrDriveRelative},
	}
	for _, c := range cases {
		t.Run(c.p, func(t *testing.T) {
			got, err := resolve(base, c.p, true)
			if got != c.want || !errors.Is(err, c.err) {
				t.Fatalf("resolve(%q) = %q, %v; want %q, %v", c.p, got, err, c.want, c.err)
			}
		})
	}
	t.Run("rooted on a UNC base", func(t *testing.T) {
		got, err := resolve(`\\server\share\project`, `\notes.txt`, true)
		if err != nil || got != `\\server\share\notes.txt` {
			t.Fatalf("resolve = %q, %v", got, err)
		}
	})
}

func TestWinVolume_Forms(t *testing.T) {
	for p, want := range map[string]string{
		`C:\x`:             `C:`,
		`c:`:               `c:`,
		`\\server\share\x`: `\\server\share`,
		`\\server\share`:   `\\server\share`,
		`\\server`:         `\\server`,
		`\x`:               ``,
		`x`:                ``,
		`1:\x`:             ``,
		`\\.\pipe\agentty`: `\\.\pipe\agentty`,
	} {
		if got := winVolume(p); got != want {
			t.Errorf("winVolume(%q) = %q, want %q", p, got, want)
		}
	}
}
