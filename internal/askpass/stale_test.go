package askpass

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestListen_RemovesStale: a server starting removes the directories of
// this user's askpass servers that died without closing (socket refusing,
// or no socket for a minute), and keeps a live server's, one being made
// and anything else.
func TestListen_RemovesStale(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	never := func(context.Context, Request) ([]byte, error) { return nil, nil }
	listen := func() *Server {
		t.Helper()
		s, err := Listen(Options{Exe: "/nonexistent/agentty"}, never)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// Two servers that die: the kernel closes their sockets, their files stay.
	var dead []string
	for range 2 {
		s := listen()
		s.ln.SetUnlinkOnClose(false)
		_ = s.ln.Close()
		s.cancel()
		s.wg.Wait()
		dead = append(dead, filepath.Base(s.dir))
	}
	live := listen()
	t.Cleanup(func() { _ = live.Close() })
	mk := func(name string, age time.Duration) {
		t.Helper()
		dir := filepath.Join(tmp, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dir, time.Now().Add(-age), time.Now().Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	mk("agentty-askpass-making", 0)            // a server between mkdir and listen
	mk("agentty-askpass-abandoned", time.Hour) // died before it listened
	mk("other", time.Hour)
	s := listen()
	t.Cleanup(func() { _ = s.Close() })

	ents, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	want := []string{"agentty-askpass-making", filepath.Base(live.dir), filepath.Base(s.dir), "other"}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Fatalf("left %v, want %v (dead %v)", left, want, dead)
	}
	// The live server still answers.
	if _, err := Ask(context.Background(), live.Env()[SocketEnv], "Password: "); err == nil || err.Error() != "the asking process does not belong to a session of this agentty server" {
		t.Fatalf("live server after the sweep: %v", err)
	}
}
