package main

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/bench"
)

// garbage is what TestDebugSocket_Answers drops before "collect".
var garbage []byte

// TestDebugSocket_Answers: "stats" is one JSON line with the goroutine
// count and heap figures, "collect" the same after a collection, "stacks"
// every goroutine's stack; a path that
// holds another file is refused and the file left alone; Close is
// idempotent and stops answering.
func TestDebugSocket_Answers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "debug.sock")
	d, err := listenDebug(path, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ask := func(req string) string {
		t.Helper()
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(bufio.NewReader(c))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var st bench.ServerStats
	if err := json.Unmarshal([]byte(ask("stats\n")), &st); err != nil || st.Goroutines < 1 || st.HeapInuse == 0 || st.Sys == 0 {
		t.Errorf("stats: %+v, %v; want goroutines and heap figures", st, err)
	}
	// "collect" answers the same figures once the garbage is collected:
	// 32 MiB dropped just before are no longer in use.
	garbage = make([]byte, 32<<20)
	garbage = nil
	if err := json.Unmarshal([]byte(ask("collect\n")), &st); err != nil || st.Goroutines < 1 || st.HeapInuse >= 16<<20 {
		t.Errorf("collect: heap in use %d B (%+v), %v; want under 16 MiB once 32 MiB of garbage is collected", st.HeapInuse, st, err)
	}
	if s := ask("stacks\n"); !strings.Contains(s, "goroutine ") || !strings.Contains(s, "TestDebugSocket_Answers") {
		t.Errorf("stacks lack this test's goroutine:\n%.500s", s)
	}
	if s := ask("other\n"); s != "" {
		t.Errorf("unknown request answered %q, want nothing", s)
	}
	d.Close()
	d.Close()
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		t.Error("the socket still answers after Close")
	}

	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := listenDebug(file, slog.New(slog.DiscardHandler)); err == nil {
		d.Close()
		t.Error("listenDebug took the path of a regular file")
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep" {
		t.Errorf("the file at the path: %q, %v; want it untouched", b, err)
	}
}
