package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/logbuf"
)

// TestAskpass_MadeAtFirstSession: New makes no askpass directory (a cold
// start does no file system work for it); the first local session gets
// SUDO_ASKPASS naming a script that exists and a socket that listens, the
// next one the same; Close removes the directory.
func TestAskpass_MadeAtFirstSession(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var log logbuf.Buffer
	cfg := testConfig(t, t.TempDir(), &log)
	cfg.Askpass = &AskpassConfig{Exe: "/nonexistent/agentty"}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("New made %v in TMPDIR; askpass must wait for the first session", names(ents))
	}
	cs, _ := serveMem(t, s)
	defer cs.Close()

	var script string
	for i := range 2 {
		var st struct {
			SessionID string `json:"session_id"`
			Output    string `json:"output"`
			State     string `json:"state"`
		}
		call(t, cs, "start_process", map[string]any{"argv": []string{"sh", "-c", `printf '%s|%s' "$SUDO_ASKPASS" "$AGENTTY_ASKPASS_SOCKET"`},
			"mode": "pipe", "timeout_ms": 10000}, &st)
		if st.State != "exited" {
			t.Fatalf("session %d: state %q, want exited", i, st.State)
		}
		got, sock, _ := strings.Cut(st.Output, "|")
		if got == "" || sock == "" || filepath.Dir(got) != filepath.Dir(sock) || !strings.HasPrefix(got, tmp+"/agentty-askpass-") {
			t.Fatalf("session %d: SUDO_ASKPASS %q, socket %q: want both in a new directory under %s", i, got, sock, tmp)
		}
		if i == 1 && got != script {
			t.Fatalf("second session got SUDO_ASKPASS %q, the first %q: want one server", got, script)
		}
		script = got
		fi, err := os.Stat(sock)
		if err != nil || fi.Mode()&os.ModeSocket == 0 {
			t.Fatalf("socket %s: %v %v", sock, fi, err)
		}
		if b, err := os.ReadFile(script); err != nil || !strings.Contains(string(b), "askpass -socket") {
			t.Fatalf("script %s: %q %v", script, b, err)
		}
	}
	cs.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(script)); !os.IsNotExist(err) {
		t.Fatalf("askpass directory after Close: %v, want it removed", err)
	}
}

func names(ents []os.DirEntry) []string {
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	return n
}
