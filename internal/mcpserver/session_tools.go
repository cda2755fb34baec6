package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/session"
)

// Text implements texter.
func (r InfoResult) Text() string { return infoLine(r.SessionInfo) }

func infoLine(in SessionInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s pid=%d %s", in.ID, in.State, in.PID, in.Mode)
	if in.Host != "" {
		fmt.Fprintf(&b, " host=%s", in.Host)
	}
	if in.LostReason != "" {
		fmt.Fprintf(&b, " lost=%q", in.LostReason)
	}
	if in.ExitCode != nil {
		fmt.Fprintf(&b, " code=%d", *in.ExitCode)
	}
	if in.Signal != "" {
		fmt.Fprintf(&b, " signal=%s", in.Signal)
	}
	fmt.Fprintf(&b, " up=%s out=%dB/%dL", time.Duration(in.UptimeMs)*time.Millisecond, in.Bytes, in.Lines)
	if in.Rows > 0 {
		fmt.Fprintf(&b, " %dx%d", in.Cols, in.Rows)
	}
	if in.TUI {
		b.WriteString(" tui")
	}
	writeListening(&b, in.Listening)
	if in.Name != "" && in.Name != in.Command {
		fmt.Fprintf(&b, " name=%s", in.Name)
	}
	fmt.Fprintf(&b, " cmd=%q", in.Command)
	return b.String()
}

// Text implements texter.
func (r ListResult) Text() string {
	if r.Count == 0 {
		return "no sessions"
	}
	lines := make([]string, len(r.Sessions))
	for i, s := range r.Sessions {
		lines[i] = infoLine(s)
	}
	return strings.Join(lines, "\n")
}

func (t *tools) listSessions(_ context.Context, _ *mcp.CallToolRequest, in ListInput) (ListResult, error) {
	since, err := parseSince(in.Since)
	if err != nil {
		return ListResult{}, err
	}
	list, err := t.cat.List(since, in.IncludeExited == nil || *in.IncludeExited)
	if err != nil {
		return ListResult{}, err
	}
	res := ListResult{Sessions: sessionInfos(list)}
	res.Count = len(res.Sessions)
	return res, nil
}

func (t *tools) getSessionInfo(_ context.Context, _ *mcp.CallToolRequest, in SessionRef) (InfoResult, error) {
	info, err := t.cat.Info(in.SessionID)
	if err != nil {
		return InfoResult{}, err
	}
	return InfoResult{sessionInfo(info)}, nil
}

func (t *tools) terminateProcess(ctx context.Context, req *mcp.CallToolRequest, in TerminateInput) (InfoResult, error) {
	s, err := t.mgr.Get(in.SessionID)
	if err != nil {
		return InfoResult{}, err
	}
	t.record(audit.Event{Event: audit.EventStop, Session: s.ID, Client: clientOf(req), Command: s.Command, PID: s.PID(),
		Detail: map[string]string{"force": fmt.Sprint(in.Force)}})
	grace := session.DefaultKillGrace
	if in.GraceMs != nil {
		if *in.GraceMs < 0 || *in.GraceMs > 60000 {
			return InfoResult{}, fmt.Errorf("%w: grace_ms must be between 0 and 60000", session.ErrBadArgs)
		}
		grace = time.Duration(*in.GraceMs) * time.Millisecond
	}
	if in.Force {
		grace = 0
	}
	if _, err := s.Terminate(ctx, grace); err != nil {
		return InfoResult{}, err
	}
	return InfoResult{sessionInfo(s.Info())}, nil
}

func (t *tools) resizePTY(_ context.Context, _ *mcp.CallToolRequest, in ResizeInput) (InfoResult, error) {
	s, err := t.mgr.Get(in.SessionID)
	if err != nil {
		return InfoResult{}, err
	}
	if err := s.Resize(in.Rows, in.Cols); err != nil {
		return InfoResult{}, err
	}
	return InfoResult{sessionInfo(s.Info())}, nil
}

// Text implements texter.
func (r DeleteResult) Text() string { return "deleted " + r.SessionID }

func (t *tools) deleteSession(_ context.Context, _ *mcp.CallToolRequest, in SessionRef) (DeleteResult, error) {
	id, err := t.cat.Delete(in.SessionID)
	if err != nil {
		return DeleteResult{}, err
	}
	return DeleteResult{SessionID: id, Deleted: true}, nil
}

// Text implements texter.
func (r ReaderResult) Text() string {
	if r.Removed {
		return fmt.Sprintf("removed reader %d from %s", r.ReaderID, r.SessionID)
	}
	return fmt.Sprintf("reader %d on %s at cursor %d", r.ReaderID, r.SessionID, r.Cursor)
}

func (t *tools) registerReader(_ context.Context, _ *mcp.CallToolRequest, in RegisterInput) (ReaderResult, error) {
	s, err := t.mgr.Get(in.SessionID)
	if err != nil {
		return ReaderResult{}, err
	}
	if in.From != "" && in.From != "start" && in.From != "end" {
		return ReaderResult{}, fmt.Errorf("%w: from must be start or end, not %s", session.ErrBadArgs, excerpt.Q(in.From))
	}
	id := s.RegisterReader(in.From != "end")
	cur := int64(0)
	for _, r := range s.Readers() {
		if r.ID == id {
			cur = r.Cursor
		}
	}
	return ReaderResult{SessionID: s.ID, ReaderID: id, Cursor: cur}, nil
}

func (t *tools) unregisterReader(_ context.Context, _ *mcp.CallToolRequest, in UnregisterInput) (ReaderResult, error) {
	s, err := t.mgr.Get(in.SessionID)
	if err != nil {
		return ReaderResult{}, err
	}
	if err := s.UnregisterReader(in.ReaderID); err != nil {
		return ReaderResult{}, err
	}
	return ReaderResult{SessionID: s.ID, ReaderID: in.ReaderID, Removed: true}, nil
}
