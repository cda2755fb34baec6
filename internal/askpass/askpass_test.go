package askpass

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServer_PeerChecked: only a process carrying one of this server's
// session markers (itself or an ancestor) is answered; the script and
// socket are where Env says.
func TestServer_PeerChecked(t *testing.T) {
	const key = "AGENTTY_TEST_MARKER"
	got := make(chan Request, 1)
	srv, err := Listen(Options{Exe: "/nonexistent/agentty", MarkerKey: key,
		Session: func(m string) (string, bool) { id, ok := strings.CutPrefix(m, "inst/"); return id, ok }},
		func(_ context.Context, r Request) ([]byte, error) {
			got <- r
			if r.Prompt == "decline" {
				return nil, errors.New("the person declined")
			}
			return []byte("s3cret"), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	env := srv.Env()
	script, err := os.ReadFile(env["SUDO_ASKPASS"])
	if err != nil || !strings.Contains(string(script), "'/nonexistent/agentty' askpass -socket '"+env[SocketEnv]+"'") {
		t.Fatalf("script %q %v", script, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	t.Run("not a session", func(t *testing.T) {
		// This test process carries no marker (nor do its ancestors).
		if _, err := Ask(ctx, env[SocketEnv], "Password: "); err == nil || !strings.Contains(err.Error(), "does not belong to a session") {
			t.Fatal(err)
		}
	})
	t.Run("a session's child", func(t *testing.T) {
		for _, marker := range []string{"other/s1", "inst/s9"} {
			// A child that carries the marker dials the socket: it is the
			// test binary asking as the askpass command would.
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), key+"="+marker, "ASKPASS_HELPER_SOCKET="+env[SocketEnv])
			out, _ := cmd.CombinedOutput()
			switch marker {
			case "other/s1":
				if !strings.Contains(string(out), "does not belong to a session") {
					t.Fatalf("another server's session was answered: %s", out)
				}
			default:
				if !strings.Contains(string(out), "answer=s3cret") {
					t.Fatalf("%s", out)
				}
				r := <-got
				if r.Session != "s9" || r.Prompt != "[sudo] password: " || r.UID != os.Getuid() || r.PID == os.Getpid() {
					t.Fatalf("request %+v", r)
				}
			}
		}
	})
}

// TestMain runs the test binary as the askpass client TestServer_PeerChecked
// starts as its child (no test of its own: a skipped test fails CI).
func TestMain(m *testing.M) {
	if sock := os.Getenv("ASKPASS_HELPER_SOCKET"); sock != "" {
		s, err := Ask(context.Background(), sock, "[sudo] password: ")
		if err != nil {
			os.Stdout.WriteString("error=" + err.Error() + "\n")
			os.Exit(0)
		}
		os.Stdout.WriteString("answer=" + string(s) + " pid=" + strconv.Itoa(os.Getpid()) + "\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}
