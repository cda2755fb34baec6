package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/excerpt"
)

// MaxReply bounds one reply message on the wire. The official TypeScript
// client refuses a message over 10 MiB by closing the transport, which kills
// the server and every session; 9 MiB leaves room for the envelope and for
// the client's read chunks. maxEncodedOutput keeps a full read (its output
// sent once) under it.
const MaxReply = 9 << 20

// maxErrorText bounds the text of a tool error. Our own errors quote input
// through excerpt.Q; the SDK's schema validation errors quote it whole.
const maxErrorText = 4 << 10

// replyEnvelope is room kept for the JSON-RPC envelope around a result.
const replyEnvelope = 4 << 10

// capReplies is the last guard on what a call can send back, whatever the
// tool and its input: error texts are clipped to maxErrorText and a tool
// result larger than MaxReply becomes an error saying what was dropped.
func capReplies(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, clipError(err)
			}
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
				return capToolResult(log, req, r), nil
			}
			return res, nil
		}
	}
}

func capToolResult(log *slog.Logger, req mcp.Request, r *mcp.CallToolResult) *mcp.CallToolResult {
	if r.IsError {
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				tc.Text = excerpt.Clip(shortenQuotes(tc.Text), maxErrorText)
			}
		}
	}
	size, err := replySize(r)
	if err != nil || size <= MaxReply-replyEnvelope {
		return r
	}
	name := ""
	if cr, ok := req.(*mcp.CallToolRequest); ok && cr.Params != nil {
		name = cr.Params.Name
	}
	log.Warn("tool reply over the cap replaced by an error", "tool", name, "bytes", size, "cap", MaxReply)
	res := &mcp.CallToolResult{}
	res.SetError(fmt.Errorf("the reply of %s was %d bytes, over the %d-byte reply cap, and was dropped: ask for less (a lower max_bytes, max_lines, limit or preview_bytes, or a narrower query)",
		excerpt.Q(name), size, MaxReply-replyEnvelope))
	return res
}

// replySize is the length of r as JSON without encoding it again (a page of
// output would be encoded a second time only to be measured): text blocks
// by their escaped length, structured content already encoded by its
// length, anything else encoded.
func replySize(r *mcp.CallToolResult) (int, error) {
	n := 64 // field names, isError, brackets
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok && t.Meta == nil && t.Annotations == nil {
			n += jsonStringLen(t.Text) + 32
			continue
		}
		b, err := json.Marshal(c)
		if err != nil {
			return 0, err
		}
		n += len(b) + 1
	}
	switch sc := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		n += len(sc) + 24
	default:
		b, err := json.Marshal(sc)
		if err != nil {
			return 0, err
		}
		n += len(b) + 24
	}
	if r.Meta != nil {
		b, err := json.Marshal(r.Meta)
		if err != nil {
			return 0, err
		}
		n += len(b) + 12
	}
	return n, nil
}

// jsonStringLen is the length of s encoded as a JSON string by
// encoding/json (HTML characters and invalid UTF-8 escaped), quotes
// included.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // written as \ufffd
		case r == 0x2028 || r == 0x2029:
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// quoted matches a Go-quoted string, as the SDK's schema errors quote
// the offending value (`maxLength: "…" contains 3000 Unicode code points`).
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// shortenQuotes replaces each long quoted value in a long error text by
// its excerpt.
func shortenQuotes(s string) string {
	if len(s) <= 1024 {
		return s
	}
	return quoted.ReplaceAllStringFunc(s, func(q string) string {
		if len(q) <= 2*excerpt.Max {
			return q
		}
		if v, err := strconv.Unquote(q); err == nil {
			return excerpt.Q(v)
		}
		return q
	})
}

// clipError shortens an error's text, keeping its JSON-RPC code (the SDK
// derives it from the error chain).
func clipError(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we == err {
		if len(we.Message) <= maxErrorText {
			return err
		}
		return &jsonrpc.Error{Code: we.Code, Message: excerpt.Clip(we.Message, maxErrorText), Data: we.Data}
	}
	if msg := err.Error(); len(msg) > maxErrorText {
		return clippedError{msg: excerpt.Clip(msg, maxErrorText), err: err}
	}
	return err
}

type clippedError struct {
	msg string
	err error
}

func (e clippedError) Error() string { return e.msg }
func (e clippedError) Unwrap() error { return e.err }
