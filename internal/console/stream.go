package console

// The live stream: GET /v1/sessions/{id}/stream upgraded to a WebSocket
// (subprotocol agentty.v1).
//
// Server to client: a binary message is one channel byte (1 terminal or
// stdout, 2 stderr) and output bytes, the retained history first, then
// live; a text message is a JSON event: {"type":"state",...} once at the
// start, {"type":"resize","rows","cols"}, {"type":"lease","holder"},
// {"type":"error","error"} for a refused request, and {"type":"exit",
// "exit_code","signal"} before the server closes the connection normally.
// The last 4 MiB of history are replayed, from the start of their line.
// Client to server: binary messages are keystrokes (they take the keyboard
// for ?who=attach|web; refused with ?watch=1), text messages are JSON
// {"type":"resize","rows","cols"}, {"type":"take"}, {"type":"release"}.
//
// Design: each connection has two goroutines, both owned by the request:
// the handler's own, which follows the output log from its own offsets and
// writes to the socket, and a reader for the client's messages. The log is
// the only buffer: the child's output is appended to it and never waits for
// a subscriber, so a slow client costs only itself. A client that falls
// more than maxLag bytes behind the live output, whose output was evicted
// before it was sent, or whose socket takes writeTimeout to accept one
// message, is closed with status 1013 (try again later) and a reason; on
// reconnecting it replays what is retained.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/agentty/agentty/internal/console/api"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/record"
)

// Stream wire names, from api.
const (
	Subprotocol = api.Subprotocol
	ChanStdout  = api.ChanStdout
	ChanStderr  = api.ChanStderr
)

const (
	streamChunk  = 64 << 10
	maxLag       = 8 << 20
	writeTimeout = 10 * time.Second
	// replayMax bounds the history a new connection replays (the store
	// may hold hundreds of MiB); it starts at the beginning of a line.
	replayMax = 4 << 20
	// maxKeys bounds one message of keystrokes.
	maxKeys = 64 << 10
)

// Event is a text message of the stream.
type Event = api.Event

func (h *Handler) stream(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	who := q.Get("who")
	if who == "" {
		who = "web"
	}
	if who != "attach" && who != "web" {
		fail(w, http.StatusBadRequest, "who is attach or web")
		return
	}
	id := r.PathValue("id")
	e, err := h.eng.Get(id)
	if err != nil {
		failErr(w, err)
		return
	}
	t, err := h.eng.Terminal(id)
	if err != nil {
		failErr(w, err)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{Subprotocol}})
	if err != nil {
		return // Accept answered the request
	}
	c.SetReadLimit(maxKeys + 1024)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	s := &streamer{c: c, t: t, who: who, watch: q.Get("watch") == "1"}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer cancel()
		s.readLoop(ctx)
	}()
	status, reason := s.writeLoop(ctx, e)
	if ctx.Err() == nil {
		_ = c.Close(status, reason)
	}
	cancel()
	_ = c.CloseNow()
	wg.Wait()
	if s.tookKeyboard() {
		t.Release(who, "detached")
	}
	h.opt.Logger.Debug("console stream ended", "session", id, "who", who, "reason", reason)
}

// streamer is one WebSocket connection to a session.
type streamer struct {
	c     *websocket.Conn
	t     Terminal
	who   string
	watch bool

	mu   sync.Mutex
	took bool // guarded by mu; this connection typed or took the keyboard
}

func (s *streamer) tookKeyboard() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.took
}

func (s *streamer) send(ctx context.Context, ev Event) error {
	b, _ := json.Marshal(ev)
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return s.c.Write(ctx, websocket.MessageText, b)
}

// cursor follows one selection of the log's streams.
type cursor struct {
	streams outlog.Stream
	ch      byte
	off     int64
}

// writeLoop sends the output and events until the session ended and all
// its output was sent, the client went away, or it fell behind. It returns
// how to close the connection.
func (s *streamer) writeLoop(ctx context.Context, e Entry) (websocket.StatusCode, string) {
	l := s.t.Output()
	st := l.Stats()
	if st.End-st.Start > replayMax {
		st.Start = max(st.Start, l.OffsetAfterLine(l.LineAt(st.End-replayMax)))
	}
	curs := []*cursor{{streams: outlog.Both, ch: ChanStdout, off: st.Start}}
	if s.t.Mode() == record.ModePipe {
		curs = []*cursor{{streams: outlog.Stdout, ch: ChanStdout, off: st.Start}, {streams: outlog.Stderr, ch: ChanStderr, off: st.Start}}
	}
	replayEnd := st.End
	rows, cols := s.t.Size()
	holder := s.t.Holder()
	if err := s.send(ctx, Event{Type: "state", ID: e.ID, State: string(e.State), Mode: string(e.Mode), Rows: rows, Cols: cols,
		Holder: holder, Watch: s.watch}); err != nil {
		return websocket.StatusGoingAway, ""
	}
	buf := make([]byte, 0, streamChunk+1)
	for {
		changed, watch := l.Changed(), s.t.Watch()
		ended := closed(s.t.Done())
		idle := true
		for _, c := range curs {
			sl := l.Read(c.off, -1, streamChunk, c.streams)
			if sl.LostBytes > 0 && c.off > st.Start {
				return websocket.StatusTryAgainLater, fmt.Sprintf("fell behind: %d bytes of output were dropped before they were sent; reconnect to replay what is retained", sl.LostBytes)
			}
			if c.off >= replayEnd && sl.End-sl.Next > maxLag {
				return websocket.StatusTryAgainLater, fmt.Sprintf("fell behind by %d bytes of output; reconnect to replay what is retained", sl.End-sl.Next)
			}
			c.off = sl.Next
			if len(sl.Data) == 0 {
				continue
			}
			idle = false
			buf = append(append(buf[:0], c.ch), sl.Data...)
			wctx, cancel := context.WithTimeout(ctx, writeTimeout)
			err := s.c.Write(wctx, websocket.MessageBinary, buf)
			cancel()
			if err != nil {
				if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
					return websocket.StatusTryAgainLater, "too slow: one message waited 10 s; reconnect to replay what is retained"
				}
				return websocket.StatusGoingAway, ""
			}
		}
		if !idle {
			continue
		}
		if r, c := s.t.Size(); r != rows || c != cols {
			rows, cols = r, c
			if s.send(ctx, Event{Type: "resize", Rows: rows, Cols: cols}) != nil {
				return websocket.StatusGoingAway, ""
			}
		}
		if hd := s.t.Holder(); hd != holder {
			holder = hd
			if s.send(ctx, Event{Type: "lease", Holder: holder}) != nil {
				return websocket.StatusGoingAway, ""
			}
		}
		if ended {
			ev := Event{Type: "exit"}
			if x := s.t.Status(); x != nil {
				ev.Signal, ev.SignalNumber = x.Signal, signalNumber(x.Signal)
				if x.Signal == "" && x.Lost == "" {
					ev.ExitCode = &x.Code
				}
			}
			_ = s.send(ctx, ev)
			return websocket.StatusNormalClosure, "session ended"
		}
		select {
		case <-changed:
		case <-watch:
		case <-s.t.Done():
		case <-ctx.Done():
			return websocket.StatusGoingAway, ""
		}
	}
}

// readLoop takes the client's messages until it goes away.
func (s *streamer) readLoop(ctx context.Context) {
	for {
		typ, p, err := s.c.Read(ctx)
		if err != nil {
			return
		}
		if typ == websocket.MessageBinary {
			s.keys(ctx, p)
			continue
		}
		var ev Event
		if err := json.Unmarshal(p, &ev); err != nil {
			s.refuse(ctx, "a text message is a JSON event: {\"type\":\"resize\"|\"take\"|\"release\"}")
			continue
		}
		s.control(ctx, ev)
	}
}

func (s *streamer) keys(ctx context.Context, p []byte) {
	if s.watch {
		s.refuse(ctx, "read-only: this connection watches (watch=1); reconnect without it to type")
		return
	}
	s.mu.Lock()
	s.took = true
	s.mu.Unlock()
	if err := s.t.Type(s.who, p); err != nil {
		s.refuse(ctx, err.Error())
	}
}

func (s *streamer) control(ctx context.Context, ev Event) {
	var err error
	switch ev.Type {
	case "resize":
		if s.watch {
			err = errors.New("read-only: a watching connection cannot resize the terminal")
			break
		}
		err = s.t.Resize(ev.Rows, ev.Cols)
	case "take":
		if s.watch {
			err = errors.New("read-only: reconnect without watch=1 to take the keyboard")
			break
		}
		s.mu.Lock()
		s.took = true
		s.mu.Unlock()
		err = s.t.Take(s.who)
	case "release":
		s.t.Release(s.who, "released")
	default:
		err = fmt.Errorf("unknown event type %q: send resize, take or release", ev.Type)
	}
	if err != nil {
		s.refuse(ctx, err.Error())
	}
}

func (s *streamer) refuse(ctx context.Context, msg string) {
	_ = s.send(ctx, Event{Type: "error", Error: msg})
}
