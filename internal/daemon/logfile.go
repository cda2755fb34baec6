package daemon

import (
	"os"
	"runtime"
	"sync"
)

// LogKeep is how large the daemon's log grows before it is rotated: the
// daemon runs for days, and its log must not fill the disk.
const LogKeep = 8 << 20

// LogFile is the daemon's log: appended, 0600, and rotated once it passes
// its limit (the current file becomes name.1, replacing the one before),
// so at most two limits' worth is ever kept. Safe for concurrent writes.
type LogFile struct {
	name  string
	limit int64

	mu   sync.Mutex
	f    *os.File // guarded by mu
	size int64    // guarded by mu; bytes in f
}

// OpenLog opens (or creates) name for appending; limit <= 0 means LogKeep.
func OpenLog(name string, limit int64) (*LogFile, error) {
	if limit <= 0 {
		limit = LogKeep
	}
	l := &LogFile{name: name, limit: limit}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *LogFile) open() error {
	f, err := os.OpenFile(l.name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.size = f, st.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past its
// limit (a file holding nothing yet takes p whatever its size).
func (l *LogFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	if l.size > 0 && l.size+int64(len(p)) > l.limit {
		l.rotate()
		if l.f == nil {
			return 0, os.ErrClosed
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// rotate renames the file to name.1 and opens a new one. A failed
// rotation keeps logging into the file it has. Windows renames no file
// that is open (Go opens files without FILE_SHARE_DELETE), so there it is
// closed first and, if the rename fails, reopened where it was.
func (l *LogFile) rotate() {
	if runtime.GOOS == "windows" {
		l.f.Close()
		_ = os.Rename(l.name, l.name+".1")
		if err := l.open(); err != nil {
			l.f = nil // later writes fail as after Close
		}
		return
	}
	if err := os.Rename(l.name, l.name+".1"); err == nil {
		old := l.f
		if err := l.open(); err != nil {
			l.f = old
		} else {
			old.Close()
		}
	}
}

// Close closes the file; later writes fail with os.ErrClosed.
func (l *LogFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
