package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func readLines(t *testing.T, path string) []Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d is not JSON: %v: %q", len(out)+1, err, sc.Text())
		}
		out = append(out, e)
	}
	return out
}

func TestLog_ConcurrentWritesAreWholeLines(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				if err := l.Write(Event{Event: EventInput, Session: fmt.Sprintf("s%d", g), Input: strings.Repeat("x", i*37)}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got := len(readLines(t, l.Path())); got != 800 {
		t.Fatalf("%d lines, want 800", got)
	}
	if err := l.Write(Event{Event: EventExit}); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal("second close:", err)
	}
}

func TestLog_RotatesBySize(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, &Options{MaxSize: 1000, MaxFiles: 2, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if err := l.Write(Event{Event: EventStart, Session: fmt.Sprintf("s%d", i), Command: strings.Repeat("c", 50)}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	total := 0
	for _, name := range []string{FileName, FileName + ".1", FileName + ".2"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.Size() > 1000 {
			t.Fatalf("%s is %d bytes, over MaxSize", name, st.Size())
		}
		total += len(readLines(t, filepath.Join(dir, name)))
	}
	if _, err := os.Stat(filepath.Join(dir, FileName+".3")); !os.IsNotExist(err) {
		t.Fatalf("more than MaxFiles rotated files kept: %v", err)
	}
	last := readLines(t, filepath.Join(dir, FileName))
	if last[len(last)-1].Session != "s49" || total >= 50 {
		t.Fatalf("newest event %q, %d events kept of 50 (oldest should be dropped)", last[len(last)-1].Session, total)
	}
}

// TestLog_CompleteAfterCrash kills a writer with SIGKILL mid-stream: every
// line in the file is complete JSON and the count matches what the writer
// acknowledged before it died.
func TestLog_CompleteAfterCrash(t *testing.T) {
	if os.Getenv("AUDIT_CRASH_CHILD") != "" {
		l, err := Open(os.Getenv("AUDIT_CRASH_CHILD"), nil)
		if err != nil {
			os.Exit(3)
		}
		for i := 0; ; i++ {
			if err := l.Write(Event{Event: EventInput, Session: "s1", Input: strings.Repeat("y", 300), Detail: map[string]string{"i": fmt.Sprint(i)}}); err != nil {
				os.Exit(4)
			}
			fmt.Println(i) // acknowledged
		}
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLog_CompleteAfterCrash$")
	cmd.Env = append(os.Environ(), "AUDIT_CRASH_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	acked := -1
	for sc.Scan() && acked < 50 {
		fmt.Sscan(sc.Text(), &acked)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	events := readLines(t, filepath.Join(dir, FileName))
	if len(events) < acked+1 {
		t.Fatalf("%d events in the file, %d were acknowledged before the kill", len(events), acked+1)
	}
	for i, e := range events {
		if e.Detail["i"] != fmt.Sprint(i) {
			t.Fatalf("event %d has i=%s", i, e.Detail["i"])
		}
	}
}

func TestInputText(t *testing.T) {
	if s, red := InputText("hunter2", true); s != "[redacted 7 bytes]" || !red {
		t.Fatal(s)
	}
	if s, red := InputText("ls", false); s != "ls" || red {
		t.Fatal(s)
	}
	if s, _ := InputText(strings.Repeat("a", MaxInputChars+10), false); !strings.HasSuffix(s, fmt.Sprintf("[%d bytes]", MaxInputChars+10)) {
		t.Fatal("long input not clipped")
	}
	var l *Log
	if err := l.Write(Event{}); err != nil {
		t.Fatal("nil log must discard")
	}
}

func TestReadFile_TornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("{\"event\":\"start\",\"ts\":\"2026-01-02T03:04:05Z\"}\n{\"event\":\"inp"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if len(got) != 1 || got[0].Event != "start" {
		t.Errorf("events = %+v, want the one complete start event", got)
	}
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err = %v, want one naming line 2", err)
	}
}
