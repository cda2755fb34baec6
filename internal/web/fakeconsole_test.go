package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/creack/pty"

	"github.com/agentty/agentty/internal/sigs"
)

// fakeConsole implements the console API routes the page uses (GUIDE's
// spec) over real programs, so the page can be tested before and apart
// from the real console: a PTY session relays its terminal, a pipe session
// its stdout and stderr on channels 1 and 2.
type fakeConsole struct {
	mu       sync.Mutex
	sessions map[string]*fakeSession // guarded by mu
	order    []string                // ids in start order; guarded by mu
}

type fakeSession struct {
	id, command, mode string
	started           time.Time
	in                io.Writer   // the PTY or stdin
	cast              string      // a past session's recording; "" for a live one
	rows, cols        int         // the terminal's size (PTY)
	resized           chan [2]int // the resize events clients sent: rows, cols

	mu      sync.Mutex
	history []byte         // channel-prefixed records, in order; guarded by mu
	changed chan struct{}  // closed and replaced on new output; guarded by mu
	done    bool           // the program exited; guarded by mu
	holder  string         // guarded by mu
	exit    map[string]any // how it ended: exit_code, or signal and signal_number; guarded by mu
	// behind closes this many streams, after their history, as the real
	// console closes a client that fell behind; guarded by mu.
	behind int
}

func newFakeConsole() *fakeConsole { return &fakeConsole{sessions: map[string]*fakeSession{}} }

// start runs argv as session id, in a PTY or with pipes; the program is
// killed when the test ends.
func (f *fakeConsole) start(t testing.TB, id, mode string, argv ...string) *fakeSession {
	t.Helper()
	return f.startSized(t, id, mode, 30, 100, argv...)
}

// startSized is start with a PTY of rows×cols.
func (f *fakeConsole) startSized(t testing.TB, id, mode string, rows, cols int, argv ...string) *fakeSession {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "PYTHONDONTWRITEBYTECODE=1")
	s := &fakeSession{id: id, command: strings.Join(argv, " "), mode: mode, started: time.Now(), rows: rows, cols: cols, resized: make(chan [2]int, 16), changed: make(chan struct{})}
	var wg sync.WaitGroup
	if mode == "pty" {
		tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
		if err != nil {
			t.Fatal(err)
		}
		s.in = tty
		wg.Go(func() { s.pump(1, tty) })
		t.Cleanup(func() { _ = tty.Close() })
	} else {
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		s.in = stdin
		wg.Go(func() { s.pump(1, stdout) })
		wg.Go(func() { s.pump(2, stderr) })
	}
	exited := make(chan struct{})
	go func() {
		wg.Wait()
		_ = cmd.Wait()
		exit := map[string]any{"exit_code": cmd.ProcessState.ExitCode()}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			exit = map[string]any{"signal": sigs.Name(ws.Signal()), "signal_number": int(ws.Signal())}
		}
		s.mu.Lock()
		s.done = true
		s.exit = exit
		s.notifyLocked()
		s.mu.Unlock()
		close(exited)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	f.mu.Lock()
	f.sessions[id] = s
	f.order = append(f.order, id)
	f.mu.Unlock()
	return s
}

func (s *fakeSession) pump(ch byte, r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.mu.Lock()
			s.history = append(s.history, ch, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
			s.history = append(s.history, buf[:n]...)
			s.notifyLocked()
			s.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// resizeCount is how many resize events clients sent and lastResize has
// not taken yet.
func (s *fakeSession) resizeCount() int { return len(s.resized) }

// lastResize waits for a client's resize event.
func (s *fakeSession) lastResize(t testing.TB) (rows, cols int) {
	t.Helper()
	select {
	case r := <-s.resized:
		return r[0], r[1]
	case <-time.After(10 * time.Second):
		t.Fatal("no resize event within 10s")
		return 0, 0
	}
}

func (s *fakeSession) notifyLocked() { close(s.changed); s.changed = make(chan struct{}) }

func (s *fakeSession) object() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	state := "running"
	if s.done {
		state = "exited"
	}
	o := map[string]any{"id": s.id, "state": state, "command": s.command, "host": "", "mode": s.mode,
		"started": s.started, "age_s": int(time.Since(s.started).Seconds()), "holder": s.holder, "live": s.cast == ""}
	for k, v := range s.exit {
		o[k] = v
	}
	return o
}

func (f *fakeConsole) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/sessions", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		list := []map[string]any{}
		for _, id := range f.order {
			list = append(list, f.sessions[id].object())
		}
		f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(list)
	})
	mux.HandleFunc("GET /v1/sessions/{id}/stream", f.stream)
	mux.HandleFunc("GET /v1/sessions/{id}/export", func(w http.ResponseWriter, r *http.Request) {
		if s := f.session(r.PathValue("id")); s != nil && r.URL.Query().Get("format") == "cast" {
			_, _ = io.WriteString(w, s.cast)
			return
		}
		http.Error(w, `{"error":"no such recording"}`, http.StatusNotFound)
	})
	mux.HandleFunc("GET /v1/search", f.search)
	mux.ServeHTTP(w, r)
}

// past adds a session the server no longer holds, with its recording.
func (f *fakeConsole) past(id, command, cast string) {
	s := &fakeSession{id: id, command: command, mode: "pty", started: time.Now(), cast: cast, done: true, changed: make(chan struct{})}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions[id] = s
	f.order = append(f.order, id)
}

// search finds the output lines that contain q, in the shape of
// search_output's result.
func (f *fakeConsole) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	type match struct {
		SessionID string `json:"session_id"`
		Line      int    `json:"line"`
		Text      string `json:"text"`
	}
	matches := []match{}
	f.mu.Lock()
	for _, id := range f.order {
		s := f.sessions[id]
		for i, line := range strings.Split(s.text(), "\n") {
			if strings.Contains(line, q) {
				matches = append(matches, match{id, i + 1, strings.TrimRight(line, "\r")})
			}
		}
	}
	f.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{"matches": matches, "count": len(matches), "complete": true})
}

// text is the session's output without the channel framing.
func (s *fakeSession) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for rest := s.history; len(rest) >= 5; {
		n := int(rest[1])<<24 | int(rest[2])<<16 | int(rest[3])<<8 | int(rest[4])
		b.Write(rest[5 : 5+n])
		rest = rest[5+n:]
	}
	return b.String()
}

func (f *fakeConsole) session(id string) *fakeSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[id]
}

// stream is the WebSocket: a resize event, history, live output; binary
// messages from the client are keystrokes, take and release set the
// holder.
func (f *fakeConsole) stream(w http.ResponseWriter, r *http.Request) {
	s := f.session(r.PathValue("id"))
	if s == nil {
		http.Error(w, `{"error":"no such session"}`, http.StatusNotFound)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"agentty.v1"}})
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		defer cancel()
		for {
			typ, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			if typ == websocket.MessageBinary {
				_, _ = s.in.Write(b)
				continue
			}
			var m struct {
				Type       string
				Rows, Cols int
			}
			_ = json.Unmarshal(b, &m)
			if m.Type == "resize" {
				select {
				case s.resized <- [2]int{m.Rows, m.Cols}:
				default:
				}
				continue
			}
			holder := map[string]string{"take": "web", "release": ""}
			if h, ok := holder[m.Type]; ok {
				s.mu.Lock()
				s.holder = h
				s.mu.Unlock()
				_ = c.Write(ctx, websocket.MessageText, []byte(`{"type":"lease","holder":"`+h+`"}`))
			}
		}
	}()
	// Like the real console: the state first, with the terminal's size.
	_ = c.Write(ctx, websocket.MessageText, []byte(fmt.Sprintf(`{"type":"state","state":"running","rows":%d,"cols":%d,"holder":""}`, s.rows, s.cols)))
	s.mu.Lock()
	drop := s.behind > 0
	s.behind--
	s.mu.Unlock()
	if drop {
		_ = s.relay(ctx, c, false)
		_ = c.Close(websocket.StatusTryAgainLater, "fell behind")
		return
	}
	if err := s.relay(ctx, c, true); err == nil {
		s.mu.Lock()
		exit := map[string]any{"type": "exit"}
		for k, v := range s.exit {
			exit[k] = v
		}
		s.mu.Unlock()
		ev, _ := json.Marshal(exit)
		_ = c.Write(ctx, websocket.MessageText, ev)
		_ = c.Close(websocket.StatusNormalClosure, "")
	}
}

// relay sends the history from the start, then, if follow, follows it
// until the program exits (nil) or ctx ends.
func (s *fakeSession) relay(ctx context.Context, c *websocket.Conn, follow bool) error {
	off := 0
	for {
		s.mu.Lock()
		rest, changed, done := s.history[off:], s.changed, s.done
		s.mu.Unlock()
		for len(rest) >= 5 {
			n := int(rest[1])<<24 | int(rest[2])<<16 | int(rest[3])<<8 | int(rest[4])
			msg := append([]byte{rest[0]}, rest[5:5+n]...)
			if err := c.Write(ctx, websocket.MessageBinary, msg); err != nil {
				return err
			}
			rest, off = rest[5+n:], off+5+n
		}
		if done || !follow {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return errors.New("stream ended")
		}
	}
}
