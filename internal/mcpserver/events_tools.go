package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// maxWaitSessions bounds wait_sessions: one goroutine and wait per session.
const maxWaitSessions = 32

var anyWaits = waitDefaults{timeout: 30 * time.Second}

// Text implements texter.
func (r WaitSessionsResult) Text() string {
	var b strings.Builder
	if r.SessionID != "" {
		b.WriteString(r.ReadResult.Text())
	} else {
		fmt.Fprintf(&b, "[no session | reason=%s]", r.Reason)
	}
	for _, o := range r.Others {
		fmt.Fprintf(&b, "\n%s %s", o.SessionID, o.State)
		if o.ExitCode != nil {
			fmt.Fprintf(&b, " code=%d", *o.ExitCode)
		}
		if o.Signal != "" {
			b.WriteString(" signal=" + o.Signal)
		}
		if o.Pending > 0 {
			fmt.Fprintf(&b, " pending=%dB", o.Pending)
		}
		writeListening(&b, o.Listening)
	}
	return b.String()
}

func (t *tools) waitSessions(ctx context.Context, _ *mcp.CallToolRequest, in WaitSessionsInput) (WaitSessionsResult, error) {
	if len(in.SessionIDs) == 0 || len(in.SessionIDs) > maxWaitSessions {
		return WaitSessionsResult{}, fmt.Errorf("%w: session_ids must name 1 to %d sessions", session.ErrBadArgs, maxWaitSessions)
	}
	ss := make([]*session.Session, 0, len(in.SessionIDs))
	for _, id := range in.SessionIDs {
		s, err := t.mgr.Get(id)
		if err != nil {
			return WaitSessionsResult{}, err
		}
		if slices.Contains(ss, s) {
			return WaitSessionsResult{}, fmt.Errorf("%w: session %s is named twice in session_ids", session.ErrBadArgs, s.ID)
		}
		ss = append(ss, s)
	}
	if in.ReturnOn == nil { // settle means little across sessions: only when asked
		in.ReturnOn = []string{onMatch, onInput, onExit}
		if in.SettleMs != nil {
			in.ReturnOn = append(in.ReturnOn, onSettle)
		}
		if v, ok := in.UntilListening.(bool); in.UntilListening != nil && (!ok || v) {
			in.ReturnOn = append(in.ReturnOn, onListen)
		}
	}
	w, ro, err := t.waitRead(in.WaitParams, anyWaits, in.ReadParams)
	if err != nil {
		return WaitSessionsResult{}, err
	}
	i, wr, err := session.WaitAny(ctx, ss, in.ReaderID, w)
	if err != nil {
		return WaitSessionsResult{}, err
	}
	var res WaitSessionsResult
	if i >= 0 {
		r, err := ss[i].Read(ctx, session.Cursor{Reader: in.ReaderID}, session.WaitOptions{}, ro)
		if err != nil {
			return WaitSessionsResult{}, err
		}
		r.Wait = wr
		res.ReadResult = readResult(ss[i], r)
	} else {
		res.Reason, res.ElapsedMs = string(wr.Reason), float64(wr.Elapsed.Microseconds())/1000
	}
	res.Others = []SessionState{}
	for j, s := range ss {
		if j != i {
			res.Others = append(res.Others, sessionState(s, in.ReaderID, w.Listen != nil))
		}
	}
	return res, nil
}

func sessionState(s *session.Session, reader int, listening bool) SessionState {
	st, _ := s.State()
	out := SessionState{SessionID: s.ID, State: string(st)}
	if x := s.Status(); x != nil && x.Lost == "" {
		if x.Signal != "" {
			out.Signal = x.Signal
		} else {
			code := x.Code
			out.ExitCode = &code
		}
	}
	if st == record.StateLost {
		out.ExitCode = nil
	}
	for _, r := range s.Readers() {
		if r.ID == reader {
			out.Pending = r.Pending
		}
	}
	if listening {
		out.Listening = sockets(s.Listening())
	}
	return out
}
