package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
)

// TestOpenLater: the database opens at the first call that needs it (not
// at OpenLater), a store closed unused never opens it, and a database
// that cannot be opened is every such call's error, worded for the agent,
// with sessions' output kept in memory.
func TestOpenLater(t *testing.T) {
	t.Run("first call opens", func(t *testing.T) {
		s, err := OpenLater(t.TempDir(), nil, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.db != nil {
			t.Fatal("database opened before anything needed it")
		}
		id, err := s.NextID()
		if err != nil || id != "s1" {
			t.Fatalf("NextID = %q, %v; want s1", id, err)
		}
		if _, ok := s.NewLog(id, 1<<20).(*Log); !ok {
			t.Fatal("NewLog of an open store is not store-backed")
		}
	})
	t.Run("after the delay", func(t *testing.T) {
		s, err := OpenLater(t.TempDir(), nil, time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		select {
		case <-s.opened:
		case <-time.After(30 * time.Second):
			t.Fatal("not opened after the delay")
		}
		if s.openErr != nil || s.db == nil {
			t.Fatalf("open: %v", s.openErr)
		}
	})
	t.Run("closed unused", func(t *testing.T) {
		s, err := OpenLater(t.TempDir(), nil, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil || s.db != nil {
			t.Fatalf("Close = %v, db opened %v", err, s.db != nil)
		}
		if _, err := s.NextID(); err == nil {
			t.Fatal("NextID after Close succeeded")
		}
	})
	t.Run("cannot open", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(strings.Repeat("not a database ", 512)), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := OpenLater(dir, nil, time.Hour)
		if err != nil {
			t.Fatalf("OpenLater checks only the directory: %v", err)
		}
		_, err = s.NextID()
		if err == nil || !strings.Contains(err.Error(), "--no-store") {
			t.Fatalf("NextID = %v, want the open's error naming --no-store", err)
		}
		if _, _, err := s.Messages("s1", MessageQuery{}); err == nil {
			t.Fatal("Messages succeeded without a database")
		}
		if _, ok := s.NewLog("s1-x", 1<<20).(*outlog.Memory); !ok {
			t.Fatal("NewLog without a database is not a memory log")
		}
		s.Recorder().Resized("s1-x", 24, 80) // dropped, not queued for ever
		if err := s.Close(); err != nil {
			t.Fatalf("Close = %v", err)
		}
	})
}
