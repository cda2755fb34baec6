package mcpserver

// The one path every question to the person takes (a policy confirmation,
// a round of an interactive run, a secret): ask puts a question through
// MCP elicitation the way the client's protocol generation wants it, and
// the state helpers bind a multi-round-trip retry to the question this
// server asked.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/gate"
)

// mrtrVersion is the first protocol version whose clients answer questions
// by retrying the call (multi-round-trip input requests); earlier ones get
// a server-initiated elicitation/create.
const mrtrVersion = "2026-07-28"

// question is one thing asked of the person.
type question struct {
	// key names the input request; each question of a call has its own,
	// so the answer to an earlier one never counts for a later one.
	key    string
	params *mcp.ElicitParams
	// state is what a multi-round-trip retry must echo (sealState).
	state string
	// retried: the call is a retry whose state this server sealed for this
	// question, so an input response in it is the answer. Otherwise
	// responses are ignored (forged, or meant for another question) and
	// the question is asked.
	retried bool
}

// errNoURL: the client cannot open a URL for the person (no URL-mode
// elicitation).
var errNoURL = errors.New("the client does not support URL-mode elicitation")

// ask returns the person's answer; a *needInput for multi-round-trip
// clients that have not answered yet (the handler returns it, the client
// asks and retries the call with the answer); a *gate.CannotAskError when
// the client cannot ask; errNoURL for a URL question it cannot show.
func ask(ctx context.Context, req *mcp.CallToolRequest, q question) (*mcp.ElicitResult, error) {
	if !canElicit(req) {
		return nil, &gate.CannotAskError{Why: "this MCP client cannot ask one (it does not support elicitation)"}
	}
	if q.params.Mode == "url" && !canElicitURL(req) {
		return nil, errNoURL
	}
	if multiRoundTrip(req) {
		resp, answered := req.Params.InputResponses[q.key]
		if !answered || !q.retried {
			return nil, &needInput{res: &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{q.key: q.params}, RequestState: q.state}}
		}
		if er, ok := resp.(*mcp.ElicitResult); ok && er != nil {
			return er, nil
		}
		return &mcp.ElicitResult{Action: "invalid"}, nil
	}
	return req.Session.Elicit(ctx, q.params)
}

// multiRoundTrip reports whether the client answers input requests by
// retrying the call, as the SDK decides it.
func multiRoundTrip(req *mcp.CallToolRequest) bool {
	ip := req.Session.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= mrtrVersion
}

// canElicitURL reports whether the client can open a URL for the person.
func canElicitURL(req *mcp.CallToolRequest) bool {
	if !canElicit(req) {
		return false
	}
	return req.Session.InitializeParams().Capabilities.Elicitation.URL != nil
}

// notifyDone tells a client on an older protocol that the URL question
// id is settled (notifications/elicitation/complete); multi-round-trip
// clients learn it from the retried call's result.
func notifyDone(ctx context.Context, req *mcp.CallToolRequest, id string) {
	if canElicitURL(req) && !multiRoundTrip(req) {
		_ = req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: id})
	}
}

// sealState signs parts with the server's key and the time, so a retry
// carries back only what this server handed out (and not for long).
func (t *tools) sealState(now time.Time, parts ...string) string {
	ts := strconv.FormatInt(now.Unix(), 10)
	body, _ := json.Marshal(parts)
	enc := base64.RawURLEncoding.EncodeToString(body)
	return ts + "." + enc + "." + t.stateMAC(ts, enc)
}

// openState returns the parts of a state sealed by this server within
// confirmTimeout, or false.
func (t *tools) openState(state string) ([]string, bool) {
	ts, rest, ok := strings.Cut(state, ".")
	if !ok {
		return nil, false
	}
	enc, mac, ok := strings.Cut(rest, ".")
	if !ok || !hmac.Equal([]byte(mac), []byte(t.stateMAC(ts, enc))) {
		return nil, false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)) > confirmTimeout {
		return nil, false
	}
	body, err := base64.RawURLEncoding.DecodeString(enc)
	var parts []string
	if err != nil || json.Unmarshal(body, &parts) != nil {
		return nil, false
	}
	return parts, true
}

func (t *tools) stateMAC(ts, enc string) string {
	m := hmac.New(sha256.New, t.stateKey[:])
	m.Write([]byte("state\x00" + ts + "\x00" + enc))
	return hex.EncodeToString(m.Sum(nil))
}
