package nodebackend

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/ports"
	"github.com/agentty/agentty/internal/ttymode"
)

// The wire: a stream of frames, each a kind byte, a big-endian uint32
// payload length and the payload. kindMsg carries one JSON message (a
// request, a reply or an event); kindOut carries output: a uint32 process
// id, a stream byte and the bytes.
const (
	kindMsg byte = 'M'
	kindOut byte = 'O'
)

// maxFrame bounds a frame's payload, so a corrupt stream fails instead of
// allocating without end.
const maxFrame = 16 << 20

// protoVersion is sent in the node's hello; a node that speaks another
// version is refused.
const protoVersion = 2 // 2: termios answered as ttymode.Modes

// Operations a request names.
const (
	opStart     = "start"
	opWrite     = "write"
	opCloseIn   = "close_stdin"
	opResize    = "resize"
	opInspect   = "inspect"
	opQuiet     = "quiet"
	opSignal    = "signal"
	opTerminate = "terminate"
	opTermios   = "termios"
	opClose     = "close"
	opExec      = "exec"
	opPing      = "ping"
	opListening = "listening"
)

// Events the node sends unasked.
const (
	evHello   = "hello"
	evExit    = "exit"
	evDrained = "drained"
)

// request is what the local agentty asks of its node.
type request struct {
	ID      uint64              `json:"id"`
	Op      string              `json:"op"`
	Proc    uint32              `json:"proc,omitempty"`
	Start   *backend.RemoteSpec `json:"start,omitempty"`
	Data    []byte              `json:"data,omitempty"`
	Timeout int64               `json:"timeout_ns,omitempty"` // write: how long the program may take to take it
	Rows    int                 `json:"rows,omitempty"`
	Cols    int                 `json:"cols,omitempty"`
	Signal  int                 `json:"signal,omitempty"`
	Grace   int64               `json:"grace_ns,omitempty"`
	Script  string              `json:"script,omitempty"` // exec
	Args    []string            `json:"args,omitempty"`
}

// message is what the node sends: a reply (Re set) or an event (Ev set).
type message struct {
	Re      uint64           `json:"re,omitempty"`
	Ev      string           `json:"ev,omitempty"`
	Err     string           `json:"err,omitempty"`
	ErrKind string           `json:"err_kind,omitempty"` // a sentinel of backend, see errKinds
	Proc    uint32           `json:"proc,omitempty"`
	PID     int              `json:"pid,omitempty"`
	N       int              `json:"n,omitempty"`
	Quiet   bool             `json:"quiet,omitempty"`
	Probe   *inputwait.Probe `json:"probe,omitempty"`
	Modes   *ttymode.Modes   `json:"modes,omitempty"`   // termios
	Sockets []ports.Socket   `json:"sockets,omitempty"` // listening
	Exit    *backend.Exit    `json:"exit,omitempty"`
	Out     []byte           `json:"out,omitempty"` // exec's stdout
	Version int              `json:"version,omitempty"`
	Node    string           `json:"node,omitempty"` // hello: agentty version and uname
}

// errKinds name the backend sentinels that cross the wire, so callers
// branch on them with errors.Is as for a local process.
var errKinds = map[string]error{
	"not_pty":       backend.ErrNotPTY,
	"no_ports":      ports.ErrUnsupported,
	"stdin_closed":  backend.ErrStdinClosed,
	"no_reader":     backend.ErrNoReader,
	"no_termios":    backend.ErrNoTermios,
	"remote_failed": ErrRemoteCommand,
}

// ErrRemoteCommand is returned by Exec when the script exits non-zero.
var ErrRemoteCommand = errors.New("command in the container failed")

// errReply fills m's error fields from err.
func errReply(m *message, err error) {
	if err == nil {
		return
	}
	m.Err = err.Error()
	for k, s := range errKinds {
		if errors.Is(err, s) {
			m.ErrKind = k
			return
		}
	}
}

// replyErr turns a reply's error fields back into an error.
func replyErr(m *message) error {
	if m.Err == "" {
		return nil
	}
	if s, ok := errKinds[m.ErrKind]; ok {
		return fmt.Errorf("%w (%s)", s, m.Err)
	}
	return errors.New(m.Err)
}

// writeFrame writes one frame to w (a bufio.Writer the caller flushes).
func writeFrame(w *bufio.Writer, kind byte, parts ...[]byte) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	var h [5]byte
	h[0] = kind
	binary.BigEndian.PutUint32(h[1:], uint32(n))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// readFrame reads one frame from r into buf (grown as needed) and returns
// its kind and payload, valid until the next call.
func readFrame(r *bufio.Reader, buf *[]byte) (byte, []byte, error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("node protocol: frame of %d bytes (corrupt stream?)", n)
	}
	if cap(*buf) < int(n) {
		*buf = make([]byte, n)
	}
	p := (*buf)[:n]
	if _, err := io.ReadFull(r, p); err != nil {
		return 0, nil, err
	}
	return h[0], p, nil
}

// outHeader is a kindOut frame's prefix: process id and stream.
func outHeader(proc uint32, stream byte) []byte {
	var h [5]byte
	binary.BigEndian.PutUint32(h[:4], proc)
	h[4] = stream
	return h[:]
}

// mustJSON encodes v; the wire types always encode.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("node protocol: encode %T: %v", v, err))
	}
	return b
}
