package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLockFile_Exclusive: the daemon's claim is held by one open file at a
// time (flock; LockFileEx on Windows) and free again once it is closed.
func TestLockFile_Exclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agentty.sock.lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	first := open()
	if err := lockFile(first); err != nil {
		t.Fatalf("first lock: %v", err)
	}
	for i := range 3 {
		second := open()
		if err := lockFile(second); !errors.Is(err, ErrRunning) {
			t.Fatalf("lock %d while held = %v, want ErrRunning", i, err)
		}
		second.Close()
	}
	first.Close()
	again := open()
	defer again.Close()
	if err := lockFile(again); err != nil {
		t.Fatalf("lock after the holder closed: %v", err)
	}
}
