package store

import (
	"bytes"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/record"
)

func openTest(t *testing.T, dir string, o *Options) *Store {
	t.Helper()
	s, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// startSession records a session as the engine would and returns its log.
func startSession(s *Store, id string, limit int64) *Log {
	l := s.NewLog(id, limit).(*Log)
	s.Recorder().Started(record.Start{ID: id, Command: "test " + id, Argv: []string{"test"}, Mode: record.ModePipe,
		PID: 1, Started: time.Now()})
	return l
}

func lines(from, to int) []byte {
	var b bytes.Buffer
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.Bytes()
}

// readAll reads a log from offset 0 through the Log interface, as the
// engine does, and returns the bytes and the lost bytes reported.
func readAll(l outlog.Log) ([]byte, int64) {
	var out []byte
	var lost int64
	at := int64(0)
	for {
		sl := l.Read(at, -1, 1<<16, outlog.Both)
		out = append(out, sl.Data...)
		lost += sl.LostBytes
		if sl.Next == at && len(sl.Data) == 0 {
			return out, lost
		}
		at = sl.Next
	}
}

func TestLog_OldOutputReadFromDisk(t *testing.T) {
	s := openTest(t, t.TempDir(), nil)
	l := startSession(s, "s1", 4096) // memory keeps ~4 KiB (at least one block)
	want := lines(1, 20000)
	for p := want; len(p) > 0; {
		n := min(len(p), 777)
		l.Append(outlog.Stdout, p[:n])
		p = p[n:]
	}
	st := l.Stats()
	if st.Start != 0 || st.End != int64(len(want)) || st.Lines != 20000 {
		t.Fatalf("stats %+v: want start 0 (nothing lost), end %d, 20000 lines", st, len(want))
	}
	got, lost := readAll(l)
	if lost != 0 || !bytes.Equal(got, want) {
		t.Fatalf("read back %d bytes (lost %d), want %d identical bytes", len(got), lost, len(want))
	}
	for _, n := range []int64{1, 9, 10, 4999, 19999} {
		off := l.OffsetAfterLine(n)
		if wantOff := int64(len(lines(1, int(n)))); off != wantOff {
			t.Errorf("OffsetAfterLine(%d) = %d, want %d", n, off, wantOff)
		}
		if got := l.LineAt(off + 2); got != n {
			t.Errorf("LineAt(%d) = %d, want %d", off+2, got, n)
		}
	}
	l.CloseWrite()
	// Reopened from disk alone, as after a restart.
	past, err := s.OpenLog("s1")
	if err != nil {
		t.Fatal(err)
	}
	got, lost = readAll(past)
	if lost != 0 || !bytes.Equal(got, want) {
		t.Fatalf("past log: %d bytes (lost %d), want %d", len(got), lost, len(want))
	}
}

func TestLog_GapWhenWriterIsStuck(t *testing.T) {
	// A lag bound of 1 KiB and a writer that cannot commit: another
	// connection holds the database's write lock. Appends past the first
	// KiB wait MaxStall, then go to memory only, and a gap says so.
	dir := t.TempDir()
	s := openTest(t, dir, &Options{MaxLag: 1024, MaxStall: 50 * time.Millisecond, CommitInterval: time.Hour, CommitAt: -1})
	l := startSession(s, "s1", 1<<20)
	lock, err := sql.Open("sqlite", "file:"+s.Path()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	tx, err := lock.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE meta SET v = v WHERE k = 'seq'`); err != nil { // takes the write lock
		t.Fatal(err)
	}
	data := lines(1, 1000)
	start := time.Now()
	for p := data; len(p) > 0; {
		n := min(len(p), 100)
		l.Append(outlog.Stdout, p[:n])
		p = p[n:]
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 5*time.Second {
		t.Errorf("appends took %v: want one stall of 50 ms, then no more waiting", d)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	l.CloseWrite() // closes the gap: the event is queued
	if !s.Sync(10 * time.Second) {
		t.Fatal("sync timed out")
	}
	msgs, _, err := s.Messages("s1", MessageQuery{Limit: 100, Kinds: []int{kindEvent}, Preview: 200})
	if err != nil {
		t.Fatal(err)
	}
	var gaps int64
	for _, m := range msgs {
		if m.Event == "gap" {
			gaps += m.Size
			if m.Offset != 1000 {
				t.Errorf("gap starts at %d, want 1000 (after the first 1 KiB)", m.Offset)
			}
		}
	}
	if want := int64(len(data) - 1000); gaps != want {
		t.Fatalf("gap events cover %d bytes, want %d", gaps, want)
	}
	past, err := s.OpenLog("s1")
	if err != nil {
		t.Fatal(err)
	}
	got, lost := readAll(past)
	if !bytes.Equal(got, data[:1000]) || lost != gaps {
		t.Fatalf("disk holds %d bytes, lost %d; want the first 1000 and %d lost", len(got), lost, gaps)
	}
}

// TestLog_CommitsBeforeTheQueueFills: output that fills a quarter of the
// queue is committed at once, not at the writer's next slot (an hour away
// here), so a fast writer's output reaches disk instead of a gap.
func TestLog_CommitsBeforeTheQueueFills(t *testing.T) {
	s := openTest(t, t.TempDir(), &Options{MaxLag: 1 << 20, CommitInterval: time.Hour})
	l := startSession(s, "s1", 4<<20)
	data := bytes.Repeat([]byte("0123456789abcdef\n"), (300<<10)/17)
	for p := data; len(p) > 0; {
		n := min(len(p), 4096)
		l.Append(outlog.Stdout, p[:n])
		p = p[n:]
	}
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		ch := s.commitCh
		s.mu.Unlock()
		if l.durable.Load() >= int64(len(data)*3/4) {
			break
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%d of %d bytes committed after 10 s, want at least the first quarter of the queue's worth at once", l.durable.Load(), len(data))
		}
	}
	l.CloseWrite()
	if !s.Sync(10 * time.Second) {
		t.Fatal("sync timed out")
	}
	past, err := s.OpenLog("s1")
	if err != nil {
		t.Fatal(err)
	}
	if got, lost := readAll(past); !bytes.Equal(got, data) || lost != 0 {
		t.Fatalf("disk holds %d bytes, lost %d; want all %d, none lost", len(got), lost, len(data))
	}
}

func TestRetention_SessionCapKeepsNewest(t *testing.T) {
	s := openTest(t, t.TempDir(), &Options{MaxSessionBytes: 64 << 10, CommitInterval: time.Millisecond})
	l := startSession(s, "s1", 8<<10)
	data := lines(1, 50000)
	for p := data; len(p) > 0; {
		n := min(len(p), 4096)
		l.Append(outlog.Stdout, p[:n])
		p = p[n:]
		s.Sync(10 * time.Second)
	}
	st := l.Stats()
	if st.Start == 0 || st.End-st.Start > 64<<10 || st.End != int64(len(data)) {
		t.Fatalf("stats %+v: want the oldest pruned, at most 64 KiB kept", st)
	}
	sl := l.Read(0, 0, 100, outlog.Both)
	if sl.LostBytes != st.Start || sl.LostLines != st.StartLine {
		t.Errorf("read from 0: lost %d bytes / %d lines, want %d / %d", sl.LostBytes, sl.LostLines, st.Start, st.StartLine)
	}
	tail := l.Read(st.End-int64(len("line 50000\n")), -1, 0, outlog.Both)
	if string(tail.Data) != "line 50000\n" {
		t.Errorf("newest output %q", tail.Data)
	}
}

func TestRetention_TotalPrunesOldestEndedFirst(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, &Options{MaxTotalBytes: 1 << 30})
	rec := s.Recorder()
	base := time.Now().Add(-time.Hour)
	// s1 ends last, s2 first, s3 in between; s4 keeps running.
	ends := map[string]time.Duration{"s1": 30 * time.Minute, "s2": 10 * time.Minute, "s3": 20 * time.Minute}
	for _, id := range []string{"s1", "s2", "s3", "s4"} {
		l := startSession(s, id, 1<<20)
		l.Append(outlog.Stdout, bytes.Repeat([]byte("x"), 10000))
		if d, ok := ends[id]; ok {
			l.CloseWrite()
			rec.Exited(id, record.ExitStatus{Code: 0}, base.Add(d))
		}
	}
	s.Sync(10 * time.Second)
	// Room for two sessions: the two that ended first go.
	s.opt.MaxTotalBytes = 25000
	if err := s.retain(time.Now()); err != nil {
		t.Fatal(err)
	}
	recs, err := s.Sessions(time.Time{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "s4,s1" {
		t.Fatalf("sessions after pruning: %s, want s4,s1 (s2 and s3 ended first)", got)
	}
	// Age: s1 ended 30 minutes ago.
	s.opt.MaxAge = 15 * time.Minute
	if err := s.retain(time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session("s1"); err == nil {
		t.Fatal("s1 older than max age still recorded")
	}
	if r, err := s.Session("s4"); err != nil || r.State != record.StateRunning {
		t.Fatalf("running s4: %+v, %v", r, err)
	}
}

func TestStore_LostAfterRestart(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, nil)
	l := startSession(s, "s1", 1<<20)
	l.Append(outlog.Stdout, []byte("hello\n"))
	s.Sync(10 * time.Second)
	// Pretend the server that ran s1 was another, now dead, process.
	if _, err := s.db.Exec(`UPDATE sessions SET owner_pid=?, owner_start=1 WHERE id='s1'`, 1<<30); err != nil {
		t.Fatal(err)
	}
	seen := time.Now().Add(-time.Minute).UnixNano()
	if _, err := s.db.Exec(`UPDATE sessions SET last_seen=? WHERE id='s1'`, seen); err != nil {
		t.Fatal(err)
	}
	s.Forget("s1")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openTest(t, dir, nil)
	r, err := s2.Session("s1")
	if err != nil {
		t.Fatal(err)
	}
	if r.State != record.StateLost || r.LostAt == nil || r.LostAt.UnixNano() != seen || !strings.Contains(r.LostReason, "stopped") {
		t.Fatalf("after restart: state %q lost_at %v reason %q; want lost at last_seen", r.State, r.LostAt, r.LostReason)
	}
	past, _ := s2.OpenLog("s1")
	if got, _ := readAll(past); string(got) != "hello\n" {
		t.Fatalf("transcript %q", got)
	}
	if id, err := s2.NextID(); err != nil || id != "s1" {
		t.Fatalf("NextID: %q %v", id, err)
	}
}

func TestStore_OutputBeforeStartRecordCounts(t *testing.T) {
	s := openTest(t, t.TempDir(), nil)
	l := s.NewLog("s1", 1<<20).(*Log)
	l.Append(outlog.Stdout, []byte("early\n"))
	s.Sync(10 * time.Second) // committed before the engine reports the start
	s.Recorder().Started(record.Start{ID: "s1", Command: "prog", Mode: record.ModePTY, PID: 7, Started: time.Now()})
	l.Append(outlog.Stdout, []byte("late\n"))
	r, err := s.Session("s1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Command != "prog" || r.PID != 7 || r.Bytes != 11 || r.Lines != 2 || r.DiskBytes != 11 || r.State != record.StateRunning {
		t.Fatalf("record %+v: want prog, pid 7, 11 bytes, 2 lines, 11 on disk, running", r)
	}
}

// A session whose ending is unknown (its SSH connection dropped) is stored
// as lost with the engine's reason, not as exited with a made-up status.
func TestStore_LostConnectionRecordedAsLost(t *testing.T) {
	s := openTest(t, t.TempDir(), nil)
	l := s.NewLog("s1", 1<<20)
	s.Recorder().Started(record.Start{ID: "s1", Command: "python3", Mode: record.ModePTY, Host: "u@h:22", PID: 9, Started: time.Now()})
	l.Append(outlog.Stdout, []byte("partial\n"))
	at := time.Now().Truncate(time.Millisecond)
	s.Recorder().Exited("s1", record.ExitStatus{Lost: "connection to h:22 closed"}, at)
	s.Sync(10 * time.Second)
	r, err := s.Session("s1")
	if err != nil {
		t.Fatal(err)
	}
	if r.State != record.StateLost || r.LostReason != "connection to h:22 closed" || r.LostAt == nil || !r.LostAt.Equal(at) || r.ExitCode != nil {
		t.Fatalf("record: state %q reason %q lost_at %v exit %v; want lost with the reason at %v", r.State, r.LostReason, r.LostAt, r.ExitCode, at)
	}
	if r.Host != "u@h:22" || r.Info().Host != "u@h:22" {
		t.Fatalf("host %q (info %q), want u@h:22", r.Host, r.Info().Host)
	}
}

// A data directory made before sessions had a host column opens, gains the
// column and keeps its sessions.
func TestStore_MigratesOldSchema(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, nil)
	startSession(s, "s1", 1<<20)
	s.Sync(10 * time.Second)
	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE sessions DROP COLUMN host`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s2 := openTest(t, dir, nil)
	r, err := s2.Session("s1")
	if err != nil || r.Command != "test s1" || r.Host != "" {
		t.Fatalf("after migration: %+v %v", r, err)
	}
}
