// Package stdio is the MCP transport for "agentty serve" on stdin/stdout:
// newline-delimited JSON-RPC, one message per line, that survives bad input.
//
// The SDK's StdioTransport decodes a stream and ends the connection at the
// first line it cannot decode (invalid JSON, nesting deeper than 1000, a NUL
// byte), and with it the server and every session. Here each line is framed
// and decoded on its own: a malformed line is answered with a JSON-RPC error
// (id null, -32700 parse error or -32600 invalid request) and logged, and
// the next line is read as if nothing happened.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/stdin"
)

// Transport is an mcp.Transport over a line-oriented reader and writer.
type Transport struct {
	In  io.ReadCloser // nil: os.Stdin
	Out io.Writer     // nil: os.Stdout
	// MaxLine bounds one incoming line (0: mcp.DefaultMaxLineLength); a
	// longer line is skipped to its end and answered with an error.
	MaxLine int
	// MaxReply bounds one outgoing message (0: no bound); a larger response
	// is replaced by an error response saying so.
	MaxReply int
	// Limits bound the calls in flight, requests read ahead and reply
	// bytes waiting; a client that stalls at them is disconnected.
	Limits Limits
	Logger *slog.Logger // nil: discard
}

var _ mcp.Transport = (*Transport)(nil)

// maxErrorText bounds the message of an error response: the SDK quotes
// method and tool names it does not know verbatim.
const maxErrorText = 1024

// Connect starts reading lines; it is called once by the MCP server.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	c := &conn{in: t.In, out: t.Out, maxLine: t.MaxLine, maxReply: t.MaxReply, log: t.Logger,
		incoming: make(chan msgOrErr), closed: make(chan struct{}), flow: newFlow(t.Limits),
		dispatched: make(chan struct{}), watched: make(chan struct{})}
	if c.in == nil {
		c.in = stdin.Pollable()
	}
	if c.out == nil {
		c.out = stdin.PollableStdout()
	}
	if c.maxLine <= 0 {
		c.maxLine = mcp.DefaultMaxLineLength
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	go c.readLoop()
	go c.dispatch()
	go c.watch()
	return c, nil
}

type msgOrErr struct {
	msg jsonrpc.Message
	err error
}

// conn is one connection. Its read loop is owned by the conn: it ends at the
// end of input or, once Close is called, at its next delivery.
type conn struct {
	in       io.ReadCloser
	out      io.Writer
	maxLine  int
	maxReply int
	log      *slog.Logger

	incoming chan msgOrErr // read loop and dispatch -> Read
	closed   chan struct{} // closed by Close

	flow       *flow
	dispatched chan struct{} // closed when dispatch returns
	watched    chan struct{} // closed when watch returns

	writeMu sync.Mutex // serialises writes so lines never interleave

	closeOnce sync.Once
	closeErr  error
}

func (c *conn) SessionID() string { return "" }

// Read returns the next well-formed message.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case v := <-c.incoming:
		return v.msg, v.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write sends msg as one line. A response larger than MaxReply becomes an
// error response; an overlong error message is clipped.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok {
		defer c.flow.answered(r.ID)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if line, ok := encodeFast(msg); ok && (c.maxReply <= 0 || len(line)-1 <= c.maxReply) {
		return c.writeRaw(line)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %w", err)
	}
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil && len(data) > maxErrorText {
		data = clipError(r.ID, data)
	}
	if r, ok := msg.(*jsonrpc.Response); ok && c.maxReply > 0 && len(data) > c.maxReply {
		c.log.Warn("reply over the cap replaced by an error", "bytes", len(data), "cap", c.maxReply)
		data, err = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("the reply was %d bytes, over the %d-byte cap, and was not sent; ask for less (e.g. lower max_bytes or narrow the query)", len(data), c.maxReply)}})
		if err != nil {
			return err
		}
	}
	return c.writeLine(data)
}

// clipError shortens the message of the encoded error response data. The
// code is read back from data: the SDK derives it from the error's chain
// when it encodes.
func clipError(id jsonrpc.ID, data []byte) []byte {
	var w struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if json.Unmarshal(data, &w) != nil || w.Error == nil || len(w.Error.Message) <= maxErrorText {
		return data
	}
	w.Error.Message = excerpt.Clip(w.Error.Message, maxErrorText)
	if clipped, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: w.Error}); err == nil {
		return clipped
	}
	return data
}

func (c *conn) writeLine(data []byte) error { return c.writeRaw(append(data, '\n')) }

// writeChunk is how much of a line one write hands the kernel, so a
// slow reader's progress shows within a long reply.
const writeChunk = 256 << 10

// writeRaw writes line, which ends in its newline. Its bytes count as
// waiting from now until written.
func (c *conn) writeRaw(line []byte) error {
	c.flow.wait(len(line))
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	for len(line) > 0 {
		n, err := c.out.Write(line[:min(len(line), writeChunk)])
		c.flow.wrote(n)
		line = line[n:]
		if err != nil {
			c.flow.wrote(len(line))
			return err
		}
	}
	return nil
}

// Close stops the connection; a Read waiting for input returns io.EOF. It
// waits for the connection's dispatch and watch goroutines.
func (c *conn) Close() error {
	err := c.stop()
	<-c.dispatched
	<-c.watched
	return err
}

func (c *conn) stop() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.closeErr = c.in.Close()
	})
	return c.closeErr
}

// disconnect ends a client that stopped reading: a write waiting on it
// fails at once (a pollable file or socket), and reading ends.
func (c *conn) disconnect() {
	if d, ok := c.out.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(time.Unix(1, 0))
	}
	_ = c.stop()
}

// readLoop frames lines and hands well-formed messages on: requests to
// the flow's queue (it waits while the queue is full: the client is
// slowed), anything else to Read at once. It returns at the end of input
// (queued after the requests before it) or once the conn is closed.
func (c *conn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	var line []byte
	for {
		n, err := readLine(r, &line, c.maxLine)
		if n > 0 || len(line) > 0 {
			if msg := c.decode(line, n); msg != nil && !c.route(msg, n) {
				return
			}
		}
		if err != nil {
			c.flow.push(queued{err: err}, c.closed)
			return
		}
	}
}

// route hands on one message; false once the conn is closed.
func (c *conn) route(msg jsonrpc.Message, n int) bool {
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		accepted, closed := c.flow.push(queued{req: req, bytes: n}, c.closed)
		if !accepted && !closed {
			id, _ := json.Marshal(req.ID.Raw())
			c.reject(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: id %s is already in use by a call in flight; use a new id for each call", id), n)
		}
		return !closed
	}
	if id, ok := cancelledID(msg); ok && c.flow.drop(id) {
		return true // cancelled before it ran: never run, not answered
	}
	return c.deliver(msgOrErr{msg: msg})
}

func (c *conn) deliver(v msgOrErr) bool {
	select {
	case c.incoming <- v:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads one line into *line without its terminator. n is the
// line's full length; when n > max, *line is empty and the rest of the line
// was skipped without being kept. err is the reader's error (io.EOF at the
// end of input, possibly after a last unterminated line).
func readLine(r *bufio.Reader, line *[]byte, max int) (n int, err error) {
	*line = (*line)[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if n <= max+1 { // +1: the terminator
			*line = append(*line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			n--
			if len(*line) > 0 {
				*line = (*line)[:len(*line)-1]
			}
		}
		if n > max {
			*line = (*line)[:0]
		}
		return n, err
	}
}

// decode turns one line into a message, or answers it with an error and
// returns nil. n is the line's length (larger than len(line) if it was too
// long to keep).
func (c *conn) decode(line []byte, n int) jsonrpc.Message {
	if n > c.maxLine {
		c.reject(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: message of %d bytes is over the %d-byte limit; it was skipped", n, c.maxLine), n)
		return nil
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil // blank lines separate nothing
	}
	if msg, ok := decodeFast(line); ok {
		return msg
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err == nil {
		return msg
	}
	switch {
	case !json.Valid(line) && !tooDeep(line):
		c.reject(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: the line is not valid JSON (%d bytes, starting %s)", len(line), excerpt.Q(string(line))), n)
	case tooDeep(line):
		c.reject(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: JSON nested deeper than %d levels (%d bytes)", maxDepth, len(line)), n)
	case line[0] == '[':
		c.reject(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: batches are not supported; send one message per line", n)
	default:
		c.reject(requestID(line), jsonrpc.CodeInvalidRequest, "Invalid Request: "+excerpt.Clip(err.Error(), 200), n)
	}
	return nil
}

// reject answers a line that is not a message. Writing the answer may fail
// if the client has gone; the read loop then meets the end of input.
func (c *conn) reject(id json.RawMessage, code int64, text string, n int) {
	c.log.Warn("malformed message answered with an error", "bytes", n, "code", code, "err", text)
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(errorResponse{Version: "2.0", ID: id, Error: wireError{Code: code, Message: text}})
	if err == nil {
		err = c.writeLine(data)
	}
	if err != nil && !errors.Is(err, os.ErrClosed) {
		c.log.Warn("cannot answer a malformed message", "err", err)
	}
}

// errorResponse is a JSON-RPC error response whose id may be null, which
// jsonrpc.EncodeMessage cannot write (it omits an unset id).
type errorResponse struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   wireError       `json:"error"`
}

type wireError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// requestID returns the id of a JSON object that is not a valid message, if
// it has a usable one (a string or number), so the client can match the
// error to its call.
func requestID(line []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &v) != nil || len(v.ID) == 0 || len(v.ID) > 256 {
		return nil
	}
	var s string
	var f float64
	if json.Unmarshal(v.ID, &s) == nil || json.Unmarshal(v.ID, &f) == nil {
		return v.ID
	}
	return nil
}

// maxDepth is the nesting the SDK's decoder accepts.
const maxDepth = 1000

// tooDeep reports whether line nests objects and arrays deeper than
// maxDepth (strings skipped).
func tooDeep(line []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range line {
		switch {
		case inString && escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case inString && b == '"':
			inString = false
		case inString:
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > maxDepth {
				return true
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return false
}
