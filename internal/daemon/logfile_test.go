package daemon

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestLogFile_Rotates(t *testing.T) {
	name := filepath.Join(t.TempDir(), "daemon.log")
	if err := os.WriteFile(name, []byte("from the last run\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := OpenLog(name, 64)
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.Repeat([]byte("x"), 19)
	line = append(line, '\n') // 20 bytes a line
	for range 7 {
		if _, err := l.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Write(line); err != os.ErrClosed {
		t.Fatalf("write after close: %v", err)
	}
	cur, _ := os.ReadFile(name)
	old, _ := os.ReadFile(name + ".1")
	// 18 bytes kept + 2 lines = 58; the 3rd line rotates, lines 3-5 make
	// 60; the 6th rotates again: the current file holds lines 6 and 7.
	if len(cur) != 40 || len(old) != 60 {
		t.Fatalf("current %d bytes, .1 %d bytes; want 40 and 60", len(cur), len(old))
	}
	if runtime.GOOS == "windows" {
		return // a mode is only a read-only bit there; the directory's DACL keeps the log private
	}
	for _, n := range []string{name, name + ".1"} {
		st, err := os.Stat(n)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v, want mode 0600", n, st.Mode(), err)
		}
	}
}
