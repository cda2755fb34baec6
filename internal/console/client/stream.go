package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"

	"github.com/agentty/agentty/internal/console/api"
)

// Stream is a WebSocket connection to one session's terminal.
type Stream struct {
	c *websocket.Conn
}

// Message is what the server sent: output (Channel set) or an event.
type Message struct {
	Channel byte   // api.ChanStdout or api.ChanStderr; 0 for an event
	Data    []byte // output bytes
	Event   api.Event
}

// Stream connects to a session's live stream as who ("attach" or "web");
// watch makes it read-only.
func (c *Client) Stream(ctx context.Context, id, who string, watch bool) (*Stream, error) {
	q := url.Values{"who": {who}}
	if watch {
		q.Set("watch", "1")
	}
	u := strings.Replace(c.base, "http", "ws", 1) + "/v1/sessions/" + url.PathEscape(id) + "/stream?" + q.Encode()
	h := http.Header{}
	if c.token != "" {
		h.Set("Authorization", "Bearer "+c.token)
	}
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: c.hc, HTTPHeader: h,
		Subprotocols: []string{api.Subprotocol}})
	if err != nil {
		if resp != nil && resp.StatusCode >= 400 {
			var e api.Error
			if resp.Body != nil {
				_ = json.NewDecoder(resp.Body).Decode(&e)
			}
			if e.Error != "" {
				return nil, &Error{Status: resp.StatusCode, Message: e.Error}
			}
		}
		return nil, err
	}
	conn.SetReadLimit(16 << 20)
	return &Stream{c: conn}, nil
}

// Recv returns the next message. At the end of the stream it returns an
// error; CloseReason says why the server ended it.
func (s *Stream) Recv(ctx context.Context) (Message, error) {
	typ, p, err := s.c.Read(ctx)
	if err != nil {
		return Message{}, err
	}
	if typ == websocket.MessageBinary {
		if len(p) == 0 {
			return Message{}, errors.New("empty binary message")
		}
		return Message{Channel: p[0], Data: p[1:]}, nil
	}
	var m Message
	err = json.Unmarshal(p, &m.Event)
	return m, err
}

// CloseReason is the status and reason the server closed the stream with,
// or "" when err is not a close.
func CloseReason(err error) (websocket.StatusCode, string) {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Code, ce.Reason
	}
	return -1, ""
}

// Keys sends keystrokes (taking the keyboard).
func (s *Stream) Keys(ctx context.Context, p []byte) error {
	return s.c.Write(ctx, websocket.MessageBinary, p)
}

// Send sends a control event: resize, take or release.
func (s *Stream) Send(ctx context.Context, ev api.Event) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	return s.c.Write(ctx, websocket.MessageText, b)
}

// Close ends the stream normally.
func (s *Stream) Close() error {
	return s.c.Close(websocket.StatusNormalClosure, "detached")
}

// CloseNow ends it without the closing handshake.
func (s *Stream) CloseNow() error { return s.c.CloseNow() }
