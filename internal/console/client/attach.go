package client

import (
	"context"
	"fmt"
	"io"

	"github.com/coder/websocket"

	"github.com/agentty/agentty/internal/console/api"
)

// EscapeKey starts a command to attach itself (Ctrl-]): then d detaches,
// r hands the keyboard back to agents, and a second Ctrl-] types one.
const EscapeKey = 0x1d

// DetachHelp says how to detach, for --help and the attach banner.
const DetachHelp = "Ctrl-] then d detaches, Ctrl-] then r hands the keyboard back to agents, Ctrl-] Ctrl-] types Ctrl-]"

// AttachOptions are the person's terminal.
type AttachOptions struct {
	In       io.Reader // keystrokes (the caller puts its terminal in raw mode)
	Out      io.Writer // the session's output goes here as it is
	ReadOnly bool      // watch: keystrokes other than the escape commands are ignored
	// Size is the person's window size, applied on attach and on each
	// Resized; nil leaves the session's size alone.
	Size    func() (rows, cols int, err error)
	Resized <-chan struct{}
	// Attached, when set, is called once the server has accepted the
	// attach: a banner printed before would precede "session not found".
	Attached func()
}

// AttachResult says how an attach ended.
type AttachResult struct {
	Detached bool   // the person detached (escape command or end of input)
	Ended    bool   // the session ended; ExitCode or Signal say how
	ExitCode *int   // nil when killed by a signal or unknown
	Signal   string //
	Reason   string // the server's reason when it ended the stream otherwise
}

// String renders the result for the person.
func (r AttachResult) String() string {
	switch {
	case r.Detached:
		return "detached"
	case r.Ended && r.Signal != "":
		return "session ended: killed by " + r.Signal
	case r.Ended && r.ExitCode != nil:
		return fmt.Sprintf("session ended: exit code %d", *r.ExitCode)
	case r.Ended:
		return "session ended"
	}
	return "disconnected: " + r.Reason
}

// Attach makes the person's terminal the session's until they detach or
// the session ends. The goroutine reading In ends at its next read after
// Attach returns.
func Attach(ctx context.Context, c *Client, id string, o AttachOptions) (AttachResult, error) {
	st, err := c.Stream(ctx, id, "attach", o.ReadOnly)
	if err != nil {
		return AttachResult{}, err
	}
	defer st.CloseNow()
	if o.Attached != nil {
		o.Attached()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	msgs := make(chan recvd)
	go func() {
		for {
			m, err := st.Recv(ctx)
			select {
			case msgs <- recvd{m, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	keys := make(chan []byte)
	go readKeys(ctx, o.In, keys)
	a := &attacher{st: st, o: o}
	if !o.ReadOnly {
		a.resize(ctx)
	}
	var res AttachResult
	for {
		select {
		case r := <-msgs:
			if r.err != nil {
				code, reason := CloseReason(r.err)
				if res.Ended || code == websocket.StatusNormalClosure {
					res.Ended = true
					return res, nil
				}
				if reason == "" {
					reason = r.err.Error()
				}
				res.Reason = reason
				return res, nil
			}
			if r.m.Channel != 0 {
				if _, err := o.Out.Write(r.m.Data); err != nil {
					return res, err
				}
			} else if r.m.Event.Type == "exit" {
				res.Ended, res.ExitCode, res.Signal = true, r.m.Event.ExitCode, r.m.Event.Signal
			}
		case p, ok := <-keys:
			if !ok || a.keys(ctx, p) {
				_ = st.Send(ctx, api.Event{Type: "release"})
				_ = st.Close()
				return AttachResult{Detached: true}, nil
			}
		case <-o.Resized:
			if !o.ReadOnly {
				a.resize(ctx)
			}
		}
	}
}

type recvd struct {
	m   Message
	err error
}

// attacher is one attach's keyboard state; used by Attach's goroutine only.
type attacher struct {
	st  *Stream
	o   AttachOptions
	esc bool // the last key was EscapeKey
}

func (a *attacher) resize(ctx context.Context) {
	if a.o.Size == nil {
		return
	}
	if rows, cols, err := a.o.Size(); err == nil && rows > 0 && cols > 0 {
		_ = a.st.Send(ctx, api.Event{Type: "resize", Rows: rows, Cols: cols})
	}
}

// keys sends p, acting on escape commands; it returns true to detach.
func (a *attacher) keys(ctx context.Context, p []byte) bool {
	out := make([]byte, 0, len(p))
	for _, b := range p {
		if !a.esc {
			if b == EscapeKey {
				a.esc = true
			} else {
				out = append(out, b)
			}
			continue
		}
		a.esc = false
		switch b {
		case 'd', 'D', 0x04:
			a.send(ctx, out)
			return true
		case 'r', 'R':
			a.send(ctx, out)
			out = out[:0]
			_ = a.st.Send(ctx, api.Event{Type: "release"})
		case EscapeKey:
			out = append(out, EscapeKey)
		default:
			out = append(out, EscapeKey, b)
		}
	}
	a.send(ctx, out)
	return false
}

func (a *attacher) send(ctx context.Context, p []byte) {
	if len(p) > 0 && !a.o.ReadOnly {
		_ = a.st.Keys(ctx, p)
	}
}

// readKeys copies In to keys until it fails or ctx ends; it closes keys.
func readKeys(ctx context.Context, in io.Reader, keys chan<- []byte) {
	defer close(keys)
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			select {
			case keys <- append([]byte(nil), buf[:n]...):
			case <-ctx.Done():
				return
			}
		}
		if err != nil {
			return
		}
	}
}
