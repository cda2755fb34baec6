package store

import (
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/record"
)

// Recorder returns the record.Recorder that writes inputs, resizes,
// signals, starts and exits into this store. Every method only queues,
// except Exited, which returns once the exit is committed (see there).
func (s *Store) Recorder() record.Recorder { return recorder{s} }

type recorder struct{ s *Store }

func (r recorder) Started(rec record.Start) {
	c := rec
	r.s.enqueueEvent(&op{kind: opStart, sid: rec.ID, t: rec.Started.UnixNano(), start: &c})
}

func (r recorder) Input(id string, data []byte, redacted bool, from string) {
	o := &op{kind: opRecord, rkind: kindInput, sid: id, t: time.Now().UnixNano(), size: int64(len(data)),
		who: from, redacted: redacted}
	if !redacted {
		o.data = append([]byte(nil), data...)
	}
	r.s.enqueueEvent(o)
}

func (r recorder) Resized(id string, rows, cols int) {
	r.event(id, "resize", fmt.Sprintf("%dx%d", cols, rows))
}

func (r recorder) Signaled(id string, signal string) {
	r.event(id, "signal", signal)
}

func (r recorder) Exited(id string, st record.ExitStatus, at time.Time) {
	how := fmt.Sprintf("exit code %d", st.Code)
	switch {
	case st.Lost != "":
		how = "lost: " + st.Lost
	case st.Signal != "":
		how = "killed by " + st.Signal
	}
	r.event(id, "exit", how)
	c := st
	r.s.enqueueEvent(&op{kind: opExit, sid: id, t: at.UnixNano(), exit: &c})
	// The engine holds the log from here on (and drops it after its TTL);
	// the store must not keep its memory alive.
	r.s.Forget(id)
	// The engine tells no reader "exited" before this returns, so what a
	// reader was told survives a crash: the exit and all output queued
	// before it are written and committed. That is durable against the
	// server's SIGKILL (the kernel holds the writes); only a machine crash
	// could lose them, which fsync would be needed for.
	if !r.s.Sync(syncWait) {
		r.s.log.Warn("store: exit not committed in time; a crash now could lose it", "session", id, "waited", syncWait)
	}
}

func (r recorder) event(id, name, detail string) {
	r.s.enqueueEvent(&op{kind: opRecord, rkind: kindEvent, sid: id, t: time.Now().UnixNano(),
		size: int64(len(detail)), event: name, data: []byte(detail)})
}

// Leased keeps a change of who holds the keyboard as a "lease" event
// ("taken by attach", "released by web: detached"); the engine finds this
// method by interface (session.LeaseRecorder).
func (r recorder) Leased(id, holder string, taken bool, why string) {
	detail := "taken by " + holder
	if !taken {
		detail = "released by " + holder + ": " + why
	}
	r.event(id, "lease", detail)
}
