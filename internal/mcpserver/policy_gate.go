package mcpserver

// The protocol side of the gate (internal/gate): who a call's client is
// for the audit log, and asking its human through MCP elicitation when a
// rule wants confirmation. Every refusal is a tool error that names the
// rule, so the agent can adapt.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/gate"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// RemoteAddrHeader carries the client's network address into tool calls
// over HTTP. The HTTP layer sets it from the connection (overwriting any
// value the client sent); the audit log records it.
const RemoteAddrHeader = "X-Agentty-Remote-Addr"

// confirmTimeout is how long a confirmation question stays answerable.
const confirmTimeout = 5 * time.Minute

// clientOf identifies who made a request, for the audit log.
func clientOf(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return "stdio"
	}
	id := req.Session.ID()
	if req.Extra != nil && req.Extra.Header != nil {
		c := "http"
		if a := req.Extra.Header.Get(RemoteAddrHeader); a != "" {
			c += " " + a
		}
		if id != "" {
			c += " mcp-session=" + id
		}
		return c
	}
	if id != "" {
		return "stdio mcp-session=" + id
	}
	return "stdio"
}

// caller is the gate's view of who made req.
func (t *tools) caller(req *mcp.CallToolRequest) gate.Caller {
	return gate.Caller{Client: clientOf(req), Confirmer: elicitation{t: t, req: req}}
}

func (t *tools) record(e audit.Event) { t.gate.Record(e) }

// limitRefused records a refusal by a limit (too many sessions, input too
// large, ...) and passes the error on.
func (t *tools) limitRefused(req *mcp.CallToolRequest, tool, sessionID, command, limit string, err error) error {
	return t.gate.LimitRefused(clientOf(req), tool, sessionID, command, limit, err)
}

// recordInput writes the input event; text typed while the terminal's echo
// is off (a password prompt) is redacted.
func (t *tools) recordInput(req *mcp.CallToolRequest, s *session.Session, in SendInput, state record.State) {
	t.gate.Typed(clientOf(req), s, gateInput(in), state)
}

// recordStart writes the start event.
func (t *tools) recordStart(req *mcp.CallToolRequest, s *session.Session) {
	t.gate.Started(clientOf(req), s)
}

// RecordExit is a session.Config.OnExit hook that writes exit events
// (gate.RecordExit).
func RecordExit(a *audit.Log, next func(*session.Session)) func(*session.Session) {
	return gate.RecordExit(a, next)
}

// confirmID labels the confirmation in a multi-round-trip input request.
const confirmID = "agentty_confirm"

// needInput carries a multi-round-trip result (input requests for the
// client) out of a typed handler; add returns it as the call's result.
type needInput struct{ res *mcp.CallToolResult }

func (n *needInput) Error() string { return "input required from the client" }

// elicitation is the gate.Confirmer of one call.
type elicitation struct {
	t   *tools
	req *mcp.CallToolRequest
}

// Confirm asks the human (accept / decline) through ask: a multi-round-trip
// client gets the question as an input request and retries the same call
// with the response; an older client is asked with elicitation/create
// during the call. The request state is an HMAC over the command, so a
// retry only counts as an answer to the question this server asked about
// this command.
func (e elicitation) Confirm(ctx context.Context, q gate.Question) (gate.Answer, error) {
	// retried: the state is checked below, so a forged answer reads as
	// unsolicited rather than as a new question.
	er, err := ask(ctx, e.req, question{key: confirmID, retried: true, state: e.t.confirmState(time.Now(), q.Tool, q.Session, q.Command, q.Cwd),
		params: &mcp.ElicitParams{Message: q.Text(), RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}}})
	if err != nil {
		return "", err
	}
	if multiRoundTrip(e.req) && !e.t.validConfirmState(e.req.Params.RequestState, q.Tool, q.Session, q.Command, q.Cwd) {
		return gate.Unsolicited, nil
	}
	return gate.Answer(er.Action), nil
}

func (t *tools) confirmMAC(ts, tool, sessionID, command, cwd string) string {
	m := hmac.New(sha256.New, t.stateKey[:])
	for _, s := range []string{ts, tool, sessionID, command, cwd} {
		m.Write([]byte(s))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil))
}

func (t *tools) confirmState(now time.Time, tool, sessionID, command, cwd string) string {
	ts := strconv.FormatInt(now.Unix(), 10)
	return ts + "." + t.confirmMAC(ts, tool, sessionID, command, cwd)
}

func (t *tools) validConfirmState(state, tool, sessionID, command, cwd string) bool {
	ts, mac, ok := strings.Cut(state, ".")
	if !ok {
		return false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)) > confirmTimeout {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(t.confirmMAC(ts, tool, sessionID, command, cwd)))
}

// canElicit reports whether the client advertised elicitation at
// initialization.
func canElicit(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil
}
