// Package store keeps a durable record of every session: the
// session's metadata and its transcript (every output chunk with its
// absolute offset and time, every input with its sender, resizes, signals,
// exit), so nothing an agent ran is lost when memory evicts it or agentty
// restarts. Output bytes go to append-only segment files, one directory per
// session; SQLite (WAL) holds the session records, the index of every
// output chunk (offset, line, stream, time, file position) and the inputs
// and events. Measured, this takes output about ten times faster than
// storing it as SQLite blobs (see README, Benchmarks).
//
// Design: appends copy the bytes into the memory log and queue that copy
// (outlog.Memory.AppendShared: its blocks never change) under a mutex; one
// writer goroutine takes the whole queue and commits it in one transaction
// at most every CommitInterval (group commit): it appends the output to the
// segment files, then commits the index rows, so an index row never points
// past the data. Contiguous chunks of one stream that arrive within one
// commit window are stored as one record. The store never lags what was
// appended by more than MaxLag bytes: an append past it waits for the
// writer (the pump stops reading, and the program's pipe or terminal
// buffer fills instead of memory). Only a writer stuck for MaxStall makes
// output go to memory alone, with a "gap" event naming exactly the missing
// byte range. The in-memory outlog.Memory stays the cache for recent
// output; reads older than memory come from disk (see Log).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registers "sqlite"
)

// Defaults for Options.
const (
	DefaultMaxSessionBytes = 256 << 20
	DefaultMaxTotalBytes   = 4 << 30
	DefaultMaxAge          = 30 * 24 * time.Hour
	DefaultCommitInterval  = 50 * time.Millisecond
	DefaultMaxLag          = 8 << 20
	DefaultMaxStall        = 5 * time.Second
	// maxChunk bounds one stored output record, so a read near an offset
	// loads at most this much.
	maxChunk = 256 << 10
	// segmentSize is where a session's segment file is rotated; retention
	// deletes whole segment files.
	segmentSize = 64 << 20
	// heartbeat is how often running sessions' last_seen is refreshed, so
	// a crash is dated to within this much.
	heartbeat = 2 * time.Second
	// retentionEvery is how often age and total-size retention run.
	retentionEvery = 30 * time.Second
)

// ErrNotFound is returned for a session or message the store does not hold.
var ErrNotFound = errors.New("not in the transcript store")

// FileName is the database file inside the data directory.
const FileName = "agentty.db"

// Options configure a Store; zero fields take defaults.
type Options struct {
	MaxSessionBytes int64         // output kept on disk per session; oldest dropped first
	MaxTotalBytes   int64         // output kept on disk in all; oldest exited sessions pruned first
	MaxAge          time.Duration // exited sessions older than this are pruned; <0 never
	CommitInterval  time.Duration // group commit period
	// MaxLag bounds the output bytes appended but not yet committed: an
	// Append that would pass it waits for the writer (lag.go), so a pump
	// stops reading and the kernel's pipe or terminal buffer holds the
	// rest, and a SIGKILL loses at most this much.
	MaxLag int64
	// MaxStall is how long an Append waits for room before the writer is
	// taken as stuck (a hung disk, a database locked by another process):
	// the output then goes to memory only and a "gap" event names it, so
	// a stuck disk never stops the program for good.
	MaxStall time.Duration
	// CommitAt is how many queued bytes make the writer commit at once
	// rather than at its next slot: at a pipe's pace (a GB a second) one
	// CommitInterval's output is several times MaxLag, and waiting for the
	// slot would stop the pump. 0: a quarter of MaxLag; < 0: only at the
	// slot (or when an Append waits).
	CommitAt int64
	Logger   *slog.Logger
}

func (o *Options) normalize() {
	if o.MaxSessionBytes <= 0 {
		o.MaxSessionBytes = DefaultMaxSessionBytes
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.MaxAge == 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.CommitInterval <= 0 {
		o.CommitInterval = DefaultCommitInterval
	}
	if o.MaxLag <= 0 {
		o.MaxLag = DefaultMaxLag
	}
	if o.MaxStall <= 0 {
		o.MaxStall = DefaultMaxStall
	}
	if o.CommitAt == 0 {
		o.CommitAt = o.MaxLag / 4
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Store is an open transcript database. Close it to commit what is queued
// and stop the writer.
type Store struct {
	db         *sql.DB // readers (and NextID); set by openDB before opened closes
	wdb        *sql.DB // the writer goroutine's one connection: commits, retention, deletes
	opt        Options
	log        *slog.Logger
	owner      int   // this process's pid, recorded with its sessions
	ownerStart int64 // its start time (clock ticks since boot): pid plus this names one process
	path       string

	ctx    context.Context // the writer's; cancel stops it
	cancel context.CancelFunc
	wg     sync.WaitGroup // the writer goroutine

	// The database opens once (lazy.go): at Open, or for OpenLater at the
	// first call that needs it or when later fires.
	opening sync.Once
	opened  chan struct{} // closed when the open has ended
	openErr error         // set before opened closes
	later   *time.Timer   // OpenLater's background open; nil for Open

	mu        sync.Mutex
	pending   []*op               // guarded by mu; FIFO for the writer
	pendBytes int64               // guarded by mu; output bytes in pending
	lagBytes  int64               // guarded by mu; output bytes queued or being committed
	enq       uint64              // guarded by mu; ops ever queued
	committed uint64              // guarded by mu; ops ever committed (or failed)
	commitCh  chan struct{}       // guarded by mu; closed and replaced after each commit
	live      map[string]*Log     // guarded by mu; logs of this process's sessions
	closed    bool                // guarded by mu
	segs      map[string]*segment // writer goroutine only: open segment files
	wake      chan struct{}       // capacity 1: work is queued
	nudge     chan struct{}       // capacity 1: a reader waits (Sync), commit now
}

// Open opens (creating if needed) the store in dir, marks sessions whose
// process is gone as lost, applies retention, and starts the writer.
func Open(dir string, o *Options) (*Store, error) {
	s, err := prepare(dir, o)
	if err != nil {
		return nil, err
	}
	s.opening.Do(s.openDB)
	if s.openErr != nil {
		return nil, s.openErr
	}
	return s, nil
}

// prepare checks and secures the directory and the database file (cheap,
// and what fails for a wrong path) and returns the Store with its database
// not opened yet (openDB).
func prepare(dir string, o *Options) (*Store, error) {
	var opt Options
	if o != nil {
		opt = *o
	}
	opt.normalize()
	if err := secureDir(dir, opt.Logger); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	if err := secureDB(path); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Store{opt: opt, log: opt.Logger, owner: os.Getpid(), ownerStart: procStart(os.Getpid()), path: path,
		ctx: ctx, cancel: cancel, opened: make(chan struct{}),
		commitCh: make(chan struct{}), live: map[string]*Log{}, segs: map[string]*segment{}, wake: make(chan struct{}, 1), nudge: make(chan struct{}, 1)}, nil
}

// openDB opens the database, migrates it, marks sessions whose process is
// gone as lost, applies retention and starts the writer; it runs once
// (opening), and closes opened when done, with openErr set on failure.
func (s *Store) openDB() {
	defer close(s.opened)
	s.openErr = s.openDBErr()
	if s.openErr != nil {
		s.cancel()
		s.mu.Lock()
		s.closed = true // nothing is queued for a database that is not there
		s.mu.Unlock()
	}
}

func (s *Store) openDBErr() error {
	path := s.path
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(OFF)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	if err := migrate(db); err != nil {
		db.Close()
		return fmt.Errorf("store: %s: %w", path, err)
	}
	// The writer has a connection of its own, so long reads (a search
	// over gigabytes) can never starve it into recording gaps.
	wdb, err := sql.Open("sqlite", dsn)
	if err != nil {
		db.Close()
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	s.db, s.wdb = db, wdb
	if err := s.markLost(true); err != nil {
		db.Close()
		wdb.Close()
		return err
	}
	if err := s.retain(time.Now()); err != nil {
		s.log.Warn("store retention failed", "err", err)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.writer(s.ctx)
	}()
	return nil
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close commits everything queued and closes the database. Idempotent.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	queued := s.enq > 0
	s.closed = true
	s.mu.Unlock()
	if s.later != nil {
		s.later.Stop()
	}
	if !queued {
		// Nothing to commit: a database never opened stays closed.
		s.opening.Do(func() { close(s.opened) })
	}
	s.opening.Do(s.openDB)
	<-s.opened
	s.cancel()
	if s.db == nil || s.openErr != nil {
		return nil
	}
	s.wg.Wait()
	s.closeSegments("")
	return errors.Join(s.wdb.Close(), s.db.Close())
}

const schema = `
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v INTEGER NOT NULL);
INSERT OR IGNORE INTO meta(k, v) VALUES('seq', 0);
CREATE TABLE IF NOT EXISTS sessions(
	id TEXT PRIMARY KEY,
	name TEXT NOT NULL DEFAULT '', command TEXT NOT NULL DEFAULT '', argv TEXT NOT NULL DEFAULT '[]',
	cwd TEXT NOT NULL DEFAULT '', env_keys TEXT NOT NULL DEFAULT '[]', mode TEXT NOT NULL DEFAULT '',
	host TEXT NOT NULL DEFAULT '',
	pid INTEGER NOT NULL DEFAULT 0, owner_pid INTEGER NOT NULL DEFAULT 0, owner_start INTEGER NOT NULL DEFAULT 0,
	rows INTEGER NOT NULL DEFAULT 0, cols INTEGER NOT NULL DEFAULT 0,
	started_at INTEGER NOT NULL DEFAULT 0, exited_at INTEGER, last_seen INTEGER NOT NULL DEFAULT 0,
	state TEXT NOT NULL DEFAULT 'running', exit_code INTEGER, signal TEXT NOT NULL DEFAULT '',
	lost_at INTEGER, lost_reason TEXT NOT NULL DEFAULT '',
	bytes INTEGER NOT NULL DEFAULT 0, lines INTEGER NOT NULL DEFAULT 0,
	start_off INTEGER NOT NULL DEFAULT 0, start_line INTEGER NOT NULL DEFAULT 0,
	disk_bytes INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS sessions_started ON sessions(started_at);
-- One table for the whole transcript: kind 0 output, 1 input, 2 event.
-- Output bytes are appended to per-session segment files; this table is
-- their index.
-- id orders records as they happened; off is the output offset (for input
-- and events: the output offset at that moment); line counts newlines
-- before off.
CREATE TABLE IF NOT EXISTS records(
	id INTEGER PRIMARY KEY,
	sid TEXT NOT NULL, kind INTEGER NOT NULL, t INTEGER NOT NULL,
	off INTEGER NOT NULL, line INTEGER NOT NULL DEFAULT 0, nl INTEGER NOT NULL DEFAULT 0,
	stream INTEGER NOT NULL DEFAULT 0, size INTEGER NOT NULL,
	event TEXT NOT NULL DEFAULT '', who TEXT NOT NULL DEFAULT '', redacted INTEGER NOT NULL DEFAULT 0,
	data BLOB, -- input and event content; NULL for output, which lives in segment files
	seg INTEGER NOT NULL DEFAULT 0, pos INTEGER NOT NULL DEFAULT 0); -- output: segment file number and position in it
CREATE INDEX IF NOT EXISTS records_off ON records(sid, kind, off);
CREATE INDEX IF NOT EXISTS records_line ON records(sid, kind, line, off);
CREATE INDEX IF NOT EXISTS records_sid ON records(sid, id);
`

func migrate(db *sql.DB) error {
	if _, err := db.Exec(schema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	// Columns added after a data directory was first created.
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM pragma_table_info('sessions') WHERE name = 'host'`).Scan(&n); err != nil {
		return fmt.Errorf("inspect schema: %w", err)
	}
	if n == 0 {
		if _, err := db.Exec(`ALTER TABLE sessions ADD COLUMN host TEXT NOT NULL DEFAULT ''`); err != nil {
			return fmt.Errorf("add sessions.host: %w", err)
		}
	}
	return nil
}

// NextID allocates a session id ("s<n>") unique across restarts and across
// servers sharing the data directory.
func (s *Store) NextID() (string, error) {
	if err := s.ready(); err != nil {
		return "", err
	}
	var n int64
	if err := s.db.QueryRow(`UPDATE meta SET v = v + 1 WHERE k = 'seq' RETURNING v`).Scan(&n); err != nil {
		return "", fmt.Errorf("store: next session id: %w", err)
	}
	return fmt.Sprintf("s%d", n), nil
}

// Check runs SQLite's integrity check on the database.
func (s *Store) Check() error {
	if err := s.ready(); err != nil {
		return err
	}
	var res string
	if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil {
		return fmt.Errorf("store: integrity check: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("store: integrity check: %s", res)
	}
	return nil
}
