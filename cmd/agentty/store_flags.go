package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/agentty/agentty/internal/store"
)

// storeFlagSet holds the transcript store's serve flags.
type storeFlagSet struct {
	dataDir      *string
	noStore      *bool
	sessionBytes *string
	totalBytes   *string
	maxAge       *time.Duration
}

func storeFlags(fs *flag.FlagSet) *storeFlagSet {
	return &storeFlagSet{
		dataDir:      fs.String("data-dir", "", "where transcripts are kept (default $XDG_STATE_HOME/agentty, i.e. ~/.local/state/agentty)"),
		noStore:      fs.Bool("no-store", false, "keep output in memory only: no transcripts, nothing written to disk"),
		sessionBytes: fs.String("retain-session-bytes", "256MiB", "output kept on disk per session; the oldest is dropped first"),
		totalBytes:   fs.String("retain-total-bytes", "4GiB", "output kept on disk in all; the oldest ended sessions are pruned first"),
		maxAge:       fs.Duration("retain-age", store.DefaultMaxAge, "ended sessions older than this are pruned (negative: never)"),
	}
}

// options validates the flags.
func (f *storeFlagSet) options() (store.Options, error) {
	per, err := parseBytes(*f.sessionBytes)
	if err != nil {
		return store.Options{}, fmt.Errorf("-retain-session-bytes: %w", err)
	}
	total, err := parseBytes(*f.totalBytes)
	if err != nil {
		return store.Options{}, fmt.Errorf("-retain-total-bytes: %w", err)
	}
	return store.Options{MaxSessionBytes: per, MaxTotalBytes: total, MaxAge: *f.maxAge}, nil
}

// dir is the store's directory, "" with --no-store.
func (f *storeFlagSet) dir() (string, error) {
	if *f.noStore {
		return "", nil
	}
	if *f.dataDir != "" {
		return *f.dataDir, nil
	}
	return defaultDataDir()
}

// open opens the store, or returns nil with --no-store.
func (f *storeFlagSet) open(o store.Options, logger *slog.Logger) (*store.Store, error) {
	dir, err := f.dir()
	if err != nil {
		return nil, err
	}
	if dir == "" {
		logger.Info("transcript store off (--no-store): output is kept in memory only")
		return nil, nil
	}
	o.Logger = logger
	st, err := store.Open(dir, &o)
	if err != nil {
		return nil, err
	}
	logger.Info("transcript store", "path", st.Path())
	return st, nil
}

// defaultDataDir is $XDG_STATE_HOME/agentty, falling back to
// ~/.local/state/agentty as the XDG base directory spec says.
func defaultDataDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "agentty"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("no home directory for the transcript store; give --data-dir or --no-store")
	}
	return filepath.Join(home, ".local", "state", "agentty"), nil
}
