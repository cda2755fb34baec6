package store

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// Transcripts keep everything programs printed and everything typed into
// them, secrets included: the data directory and every file in it are
// private to the user running agentty, whatever the umask.
const (
	dirMode  fs.FileMode = 0o700
	fileMode fs.FileMode = 0o600
)

// secureDir creates dir private, or makes an existing one private: it is
// tightened if this user owns it, refused if another user does.
func secureDir(dir string, log *slog.Logger) error {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return fmt.Errorf("store: create data dir: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("store: data dir: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("store: data dir %s is not a directory", dir)
	}
	return makePrivate(dir, fi, log)
}

// notOurs is the refusal of a data dir another user owns.
func notOurs(dir, why string) error {
	return fmt.Errorf("store: data dir %s %s, so agentty cannot make it private; "+
		"transcripts hold everything programs print and everything typed into them: give -data-dir a directory of your own, or run with -no-store", dir, why)
}

// secureDB creates the database file 0600 before SQLite opens it (SQLite
// would create it 0644 less the umask, and gives its -wal and -shm files the
// database file's mode), and makes files left by an older agentty private.
func secureDB(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, fileMode); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("store: make %s private: %w", filepath.Base(p), err)
		}
	}
	return nil
}
