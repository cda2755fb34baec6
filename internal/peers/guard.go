package peers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"
)

// Sessions is what a Guard asks the server's session manager. Why is the
// session's containment ("sandbox", "limits"), "" for a session that is
// neither.
type Sessions interface {
	// Root names the session (or run_command run) whose root process is
	// pid; ok is false when pid is no root of this server's.
	Root(pid int) (id, why string, ok bool)
	// Group names the session whose cgroup directory is dir or holds it;
	// ok is false when dir is not one of this server's groups.
	Group(dir string) (id, why string, ok bool)
	// Contained names a held session of this server (one is enough), or
	// why "" when it holds none.
	Contained() (id, why string)
}

// errExited refuses a unix peer that is gone: its pid no longer names it.
var errExited = errors.New("the connecting process exited before it could be checked")

// ErrRefused is matched (errors.Is) by a *RefusedError.
var ErrRefused = errors.New("refused a connection from a contained session")

// Verdict is what holds a peer process: Why is "" when nothing does.
type Verdict struct {
	Session string // the session (or "run") it belongs to
	Why     string // what holds it: "sandbox", "limits", "no_new_privs", "network namespace", "ended"
	// Orphan: the server adopted it and cannot tell its session; Session
	// and Why name a held session the server has.
	Orphan bool
}

// RefusedError is a connection a Guard turned away.
type RefusedError struct {
	Door string // "daemon socket", "askpass socket", "http port", "web port"
	PID  int    // the peer process
	Verdict
}

func (e *RefusedError) Error() string {
	whose := "of session " + e.Session + ", which is held (" + e.Why + ")"
	switch {
	case e.Orphan:
		whose = "an orphan agentty adopted while it holds session " + e.Session + " (" + e.Why + ")"
	case e.Session == "":
		whose = "under another agentty server, which is held (" + e.Why + ")"
	}
	return fmt.Sprintf("agentty refuses the %s to process %d %s: nothing a held session runs may act through agentty beyond its limits",
		e.Door, e.PID, whose)
}

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Guard checks the peers of a server's doors. A nil *Guard admits
// everything.
type Guard struct {
	s    Sessions
	log  *slog.Logger
	self processFacts // the server's own
	pid  int
	exe  string // the server's executable
}

// New returns a Guard over s that logs each refusal to log.
func New(s Sessions, log *slog.Logger) *Guard {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	pid := os.Getpid()
	exe, _ := os.Readlink("/proc/self/exe")
	return &Guard{s: s, log: log, pid: pid, self: factsOf(pid), exe: exe}
}

// CheckPID refuses pid (logging it) when it belongs to a held session.
func (g *Guard) CheckPID(door string, pid int) error {
	if g == nil {
		return nil
	}
	v := g.Held(pid)
	if v.Why == "" {
		return nil
	}
	return g.refuse(&RefusedError{Door: door, PID: pid, Verdict: v})
}

// Check refuses c when its peer belongs to a held session: a unix peer by
// its credentials (SO_PEERCRED), always; a TCP peer by the process that
// holds the connection's other end on this machine, looked up while the
// server holds any contained session (a loopback lookup reads the socket
// table and the descriptors of the server's descendants, so it is skipped
// when no session could be refused).
func (g *Guard) Check(door string, c net.Conn) error {
	if g == nil {
		return nil
	}
	switch c := c.(type) {
	case *net.UnixConn:
		pid, pidfd, err := unixPeer(c)
		if err != nil {
			return g.refuse(&RefusedError{Door: door, PID: pid, Verdict: Verdict{Session: "?", Why: err.Error()}})
		}
		defer closePidfd(pidfd)
		if err := g.CheckPID(door, pid); err != nil {
			return err
		}
		// The facts read were the peer's own only if it is still there.
		if !alive(pidfd) {
			return g.refuse(&RefusedError{Door: door, PID: pid, Verdict: Verdict{Session: "?", Why: errExited.Error()}})
		}
		return nil
	case *net.TCPConn:
		if _, why := g.s.Contained(); why == "" {
			return nil
		}
		for _, pid := range tcpHolders(c, g.pid) {
			if err := g.CheckPID(door, pid); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *Guard) refuse(e *RefusedError) error {
	g.log.Warn("refused a connection from a contained session", "door", e.Door, "session", e.Session, "pid", e.PID, "why", e.Why, "orphan", e.Orphan)
	return e
}

// Listener returns ln whose Accept skips the connections Check refuses.
// A refused unix peer (the daemon socket speaks HTTP) is answered 403
// with the reason once its request head arrived, within answerWait; a
// refused TCP peer is closed at once (TLS may sit above this listener).
func (g *Guard) Listener(door string, ln net.Listener) net.Listener {
	if g == nil {
		return ln
	}
	return &listener{Listener: ln, g: g, door: door}
}

// answerWait bounds how long a refused peer holds its answer goroutine.
const answerWait = 2 * time.Second

type listener struct {
	net.Listener
	g    *Guard
	door string
	wg   sync.WaitGroup // refusals being answered
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		err = l.g.Check(l.door, c)
		if err == nil {
			return c, nil
		}
		if _, ok := c.(*net.UnixConn); !ok {
			c.Close()
			continue
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			answer(c, err)
		}()
	}
}

// Close stops listening and waits for the refusals being answered.
func (l *listener) Close() error {
	err := l.Listener.Close()
	l.wg.Wait()
	return err
}

// answer reads the request head (so the peer is not cut off mid-write)
// and answers 403 with why, then closes c.
func answer(c net.Conn, why error) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(answerWait))
	br := bufio.NewReaderSize(io.LimitReader(c, 64<<10), 4096)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil || len(bytes.TrimRight(line, "\r\n")) == 0 {
			break
		}
	}
	body, _ := json.Marshal(map[string]string{"error": why.Error()})
	fmt.Fprintf(c, "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n", len(body)+1, body)
}
