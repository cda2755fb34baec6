//go:build unix

package store

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpen_PrivateDataDir: the data directory is 0700 and every file in it
// 0600 under the usual umask, whether agentty creates them or finds them;
// a directory open to others is tightened if this user owns it and
// refused if not.
func TestOpen_PrivateDataDir(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, dir string)
	}{
		{"new directory", func(t *testing.T, dir string) {}},
		{"existing 0755 directory", func(t *testing.T, dir string) {
			mkdir(t, dir, 0o755)
		}},
		{"existing 0777 directory with 0644 files", func(t *testing.T, dir string) {
			mkdir(t, dir, 0o777)
			for _, f := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
				if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			tc.prepare(t, dir)
			s := openTest(t, dir, nil)
			l := startSession(s, "s1", 4096)
			l.Append(1, lines(1, 100))
			l.CloseWrite()
			if _, err := s.Session("s1"); err != nil {
				t.Fatal(err)
			}
			checkMode(t, dir, 0o700)
			for _, f := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
				checkMode(t, filepath.Join(dir, f), 0o600)
			}
			n := 0
			err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				n++
				if d.IsDir() {
					checkMode(t, p, 0o700)
				} else {
					checkMode(t, p, 0o600)
				}
				return nil
			})
			if err != nil || n < 4 {
				t.Fatalf("walk: %v, %d entries", err, n)
			}
		})
	}
	t.Run("another user's open directory is refused", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to give the directory to another user")
		}
		dir := filepath.Join(t.TempDir(), "data")
		mkdir(t, dir, 0o755)
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir, nil)
		if err == nil || !strings.Contains(err.Error(), "is open to other users (mode 0755) and belongs to uid 65534") || !strings.Contains(err.Error(), "-data-dir") {
			t.Fatalf("Open: %v", err)
		}
		checkMode(t, dir, 0o755)
		if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
			t.Fatalf("database created in a refused directory: %v", err)
		}
	})
}

func mkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil { // not reduced by the umask
		t.Fatal(err)
	}
}

func checkMode(t *testing.T, p string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %04o, want %04o", filepath.Base(p), got, want)
	}
}
