package session

// Waiting for a program to listen.
//
// A listen wait asks the kernel which sockets the program's tree listens on
// (backend.Process.Listening): at once when new output arrives (servers log
// as they start listening), else every minListenScan, backing off to
// maxListenScan while nothing changes. Nothing scans while nobody waits. A
// repeated scan of an unchanged session is one sock_diag dump
// (ports.Scanner), so a server holding thousands of connections costs little.

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/ports"
)

// ErrNoListening is returned for a listen wait where sockets cannot be
// listed (a remote host that is not Linux).
var ErrNoListening = errors.New("listening sockets cannot be listed here")

// ListenWait asks a wait to return once the program listens.
type ListenWait struct {
	// Port is the port to wait for (TCP or UDP); 0 waits for any socket
	// that was not listening when the wait began.
	Port int
	// FromStart: the program was just started, so every socket counts as new.
	FromStart bool

	known map[string]bool // sockets listening when the wait began; set by Read
}

const (
	minListenScan = 5 * time.Millisecond
	maxListenScan = 25 * time.Millisecond
	// outputScanGap bounds scans triggered by output that keeps streaming.
	outputScanGap = 2 * time.Millisecond
	// listenLinger: a socket found by a timed scan (not after output) waits
	// this long for the log line servers print right after listen().
	listenLinger = 20 * time.Millisecond
)

// PrepareListen takes a listen wait's baseline now, for a wait that
// follows an action which may open the socket itself (send_input: the
// input can make the program listen before the wait begins). A wait given
// a prepared ListenWait keeps its baseline.
func (s *Session) PrepareListen(l *ListenWait) error { return s.prepareListen(l) }

// prepareListen takes the wait's baseline: the sockets already listening.
// A baseline already taken (PrepareListen) is kept.
func (s *Session) prepareListen(l *ListenWait) error {
	if l.known != nil {
		return nil
	}
	if isDone(s.done) {
		return nil // the wait returns exited
	}
	ss, err := s.proc.Listening()
	if errors.Is(err, ports.ErrUnsupported) {
		return fmt.Errorf("%w: %v; wait with until or settle_ms instead", ErrNoListening, err)
	}
	l.known = map[string]bool{}
	if l.Port == 0 && !l.FromStart {
		for _, x := range ss {
			l.known[x.Key()] = true
		}
	}
	return nil
}

// Listening lists the sockets the session's processes listen on now; nil
// for an exited session or where they cannot be listed.
func (s *Session) Listening() []ports.Socket {
	if isDone(s.done) {
		return nil
	}
	ss, _ := s.proc.Listening()
	return ss
}

// listenWatch is one wait's schedule of scans.
type listenWatch struct {
	o       ListenWait
	at      time.Time // next timed scan
	delay   time.Duration
	end     int64          // output end at the last scan
	found   []ports.Socket // sockets that end the wait, held during the linger
	lingerT time.Time      // end of the linger
	scans   int
}

func newListenWatch(o ListenWait, now time.Time, end int64) *listenWatch {
	return &listenWatch{o: o, at: now, delay: minListenScan, end: end}
}

// poll scans when due and says whether the wait ends, with the sockets
// that end it; next is when it wants to be called again.
func (l *listenWatch) poll(s *Session, now time.Time, end int64) (found []ports.Socket, done bool, next time.Time) {
	if l.found != nil {
		if end != l.end || !now.Before(l.lingerT) {
			return l.found, true, now
		}
		return nil, false, l.lingerT
	}
	afterOutput := end != l.end && now.Sub(l.at.Add(-l.delay)) >= outputScanGap
	if !afterOutput && now.Before(l.at) {
		return nil, false, l.at
	}
	first := l.scans == 0
	l.scans++
	ss, _ := s.proc.Listening()
	l.end = end
	if m := l.match(ss); len(m) > 0 {
		if afterOutput || first { // first: it listened before the wait, its log line is out
			return m, true, now
		}
		l.found, l.lingerT = m, now.Add(listenLinger)
		return nil, false, l.lingerT
	}
	if afterOutput {
		l.delay = minListenScan
	} else {
		l.delay = min(l.delay*2, maxListenScan)
	}
	l.at = now.Add(l.delay)
	return nil, false, l.at
}

// final scans once more, whatever the rate, when another event is about to
// end the wait: a program that listens and then waits for input (a REPL
// opening a socket) did what the wait asked for, and the scan may not have
// come round since.
func (l *listenWatch) final(s *Session) []ports.Socket {
	if l.found != nil {
		return l.found
	}
	ss, _ := s.proc.Listening()
	return l.match(ss)
}

func (l *listenWatch) match(ss []ports.Socket) []ports.Socket {
	var out []ports.Socket
	for _, x := range ss {
		switch {
		case l.o.Port != 0:
			if x.Port == l.o.Port {
				out = append(out, x)
			}
		case !l.o.known[x.Key()]:
			out = append(out, x)
		}
	}
	return out
}
