package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	core "github.com/agentty/agentty/internal/server"
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
		dataDir:      fs.String("data-dir", "", "where transcripts are kept (default $XDG_STATE_HOME/agentty, i.e. ~/.local/state/agentty; on Windows %LOCALAPPDATA%\\agentty\\state)"),
		noStore:      fs.Bool("no-store", false, "keep output in memory only: no transcripts, nothing written to disk"),
		sessionBytes: fs.String("retain-session-bytes", "256MiB", "output kept on disk per session; the oldest is dropped first"),
		totalBytes:   fs.String("retain-total-bytes", "4GiB", "output kept on disk in all; the oldest ended sessions are pruned first"),
		maxAge:       fs.Duration("retain-age", core.DefaultRetainAge, "ended sessions older than this are pruned (negative: never)"),
	}
}

// options validates the flags; the caller sets Dir (see dir).
func (f *storeFlagSet) options() (core.StoreConfig, error) {
	per, err := parseBytes(*f.sessionBytes)
	if err != nil {
		return core.StoreConfig{}, fmt.Errorf("-retain-session-bytes: %w", err)
	}
	total, err := parseBytes(*f.totalBytes)
	if err != nil {
		return core.StoreConfig{}, fmt.Errorf("-retain-total-bytes: %w", err)
	}
	return core.StoreConfig{MaxSessionBytes: per, MaxTotalBytes: total, MaxAge: *f.maxAge}, nil
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

// defaultDataDir is $XDG_STATE_HOME/agentty, falling back to
// ~/.local/state/agentty as the XDG base directory spec says; on Windows,
// without XDG_STATE_HOME, %LOCALAPPDATA%\agentty\state, beside the daemon's
// socket in a directory only the user can open.
func defaultDataDir() (string, error) {
	return dataDirFor(runtime.GOOS, os.Getenv, os.UserHomeDir)
}

func dataDirFor(goos string, getenv func(string) string, home func() (string, error)) (string, error) {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "agentty"), nil
	}
	if d := getenv("LOCALAPPDATA"); goos == "windows" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentty", "state"), nil
	}
	h, err := home()
	if err != nil || h == "" {
		return "", errors.New("no home directory for the transcript store; give --data-dir or --no-store")
	}
	return filepath.Join(h, ".local", "state", "agentty"), nil
}
