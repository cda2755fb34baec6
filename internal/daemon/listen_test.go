package daemon

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shortDir is a temporary directory short enough for socket paths.
func shortDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "agentty-daemon-unit-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func TestListen_Claim(t *testing.T) {
	sock := filepath.Join(shortDir(t), "run", SocketName)
	l, err := Listen(sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{filepath.Dir(sock): 0o700, sock: 0o600} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
	if _, err := Listen(sock, nil); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Listen on a claimed socket: %v, want ErrRunning", err)
	}
	// The failed claim left the first daemon's socket working.
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("the first daemon's socket broke: %v", err)
	}
	c.Close()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("Close left the socket file: %v", err)
	}
	l2, err := Listen(sock, nil)
	if err != nil {
		t.Fatalf("Listen after Close: %v", err)
	}
	l2.Close()
}

func TestListen_StaleSocket(t *testing.T) {
	dir := filepath.Join(shortDir(t), "run")
	sock := filepath.Join(dir, SocketName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A dead daemon's socket: the file stays, nobody listens.
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false)
	dead.Close()
	if _, err := net.Dial("unix", sock); err == nil {
		t.Fatal("the stale socket answers")
	}
	l, err := Listen(sock, nil)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer l.Close()
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Errorf("socket directory left %v, want 0700", st.Mode().Perm())
	}
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("dial the new socket: %v", err)
	}
	c.Close()
}

func TestListen_PathTooLong(t *testing.T) {
	long := filepath.Join(shortDir(t), repeat("d", 60), repeat("e", 60), SocketName)
	if _, err := Listen(long, nil); err == nil || !contains(err.Error(), "give a shorter -socket") {
		t.Fatalf("Listen on a %d-byte path: %v", len(long), err)
	}
}

func TestDefaultSocket(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		name  string
		env   map[string]string
		state string
		want  string
	}{
		{"runtime dir", map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}, "/s", "/run/user/1000/agentty/agentty.sock"},
		{"relative runtime dir ignored", map[string]string{"XDG_RUNTIME_DIR": "run"}, "/s/agentty", "/s/agentty/run/agentty.sock"},
		{"no runtime dir", nil, "/home/u/.local/state/agentty", "/home/u/.local/state/agentty/run/agentty.sock"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DefaultSocket(env(tc.env), tc.state)
			if err != nil || got != tc.want {
				t.Errorf("DefaultSocket = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := DefaultSocket(env(nil), ""); err == nil {
		t.Error("no runtime and no state directory: want an error")
	}
}

// TestListen_SharedDirectoryLeftAlone: -socket naming a file in a shared
// directory never changes that directory's mode (a daemon once made /tmp
// 0700 that way). One others can write is refused with what to do; one
// they cannot is used as it is.
func TestListen_SharedDirectoryLeftAlone(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    os.FileMode
		wantErr string
	}{
		{"world-writable and sticky, like /tmp", 0o777 | os.ModeSticky, "can be written by others"},
		{"group-writable", 0o770, "can be written by others"},
		{"readable by others, like a home", 0o755, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := shortDir(t)
			if err := os.WriteFile(filepath.Join(dir, "someone-elses-file"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.mode); err != nil {
				t.Fatal(err)
			}
			l, err := Listen(filepath.Join(dir, SocketName), nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "give -socket") {
					t.Fatalf("Listen: %v, want an error saying %q and what to give", err, tc.wantErr)
				}
			} else {
				if err != nil {
					t.Fatalf("Listen: %v", err)
				}
				l.Close()
			}
			st, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode() & (os.ModePerm | os.ModeSticky); got != tc.mode {
				t.Fatalf("directory mode %v after Listen, want %v unchanged", got, tc.mode)
			}
		})
	}
}
