package proctree

import (
	"bytes"
	"strconv"
	"time"
)

// The guard hears the tracked members of every session (see Tracker) on
// its stdin, one line each: "+PID START" when one is added, "-PID START"
// when it is dropped. When agentty dies the guard ends them with the rest,
// so a process that left the process group and cleared its environment
// still does not outlive agentty.

// feedWait bounds one write to the guard: it reads all the time, so a full
// pipe means it is stuck, and a tracker must not wait on it.
const feedWait = 100 * time.Millisecond

// feedSink is where feedGuard writes: the running guard's stdin.
type feedSink interface {
	SetWriteDeadline(time.Time) error
	Write([]byte) (int, error)
}

func writeFeed(sink feedSink, added, dropped []Proc) {
	var b []byte
	b = appendFeed(b, '+', added)
	b = appendFeed(b, '-', dropped)
	if len(b) == 0 {
		return
	}
	_ = sink.SetWriteDeadline(time.Now().Add(feedWait))
	_, _ = sink.Write(b) // a guard that cannot take it is gone or stuck: its own exit is watched
}

func appendFeed(b []byte, op byte, procs []Proc) []byte {
	for _, p := range procs {
		b = append(b, op)
		b = strconv.AppendInt(b, int64(p.PID), 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, p.StartTime, 10)
		b = append(b, '\n')
	}
	return b
}

// feedReader is the guard's side: it keeps the members it has heard of.
type feedReader struct {
	partial []byte
	members map[int]uint64
}

// take reads one chunk of the feed; a line split across chunks is kept
// for the next. Malformed lines are ignored.
func (r *feedReader) take(p []byte) {
	if r.members == nil {
		r.members = map[int]uint64{}
	}
	r.partial = append(r.partial, p...)
	for {
		i := bytes.IndexByte(r.partial, '\n')
		if i < 0 {
			break
		}
		line := r.partial[:i]
		r.partial = r.partial[i+1:]
		if len(line) < 4 {
			continue
		}
		pidS, startS, ok := bytes.Cut(line[1:], []byte{' '})
		if !ok {
			continue
		}
		pid, err1 := strconv.Atoi(string(pidS))
		start, err2 := strconv.ParseUint(string(startS), 10, 64)
		if err1 != nil || err2 != nil || pid <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			r.members[pid] = start
		case '-':
			if r.members[pid] == start {
				delete(r.members, pid)
			}
		}
	}
	if len(r.partial) == 0 {
		r.partial = nil
	}
}
