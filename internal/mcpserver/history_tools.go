package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/history"
	"github.com/agentty/agentty/internal/re2"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/store"
	"github.com/agentty/agentty/internal/termtext"
)

// errNoStore explains why a transcript tool cannot answer.
var errNoStore = errors.New("the transcript store is off (agentty serve --no-store); only live sessions' in-memory output can be read, with get_history or read_output")

func (t *tools) registerHistory(srv *mcp.Server) {
	add(srv, t.log, &mcp.Tool{Name: "get_history", Description: "Read a session's past output by line (live or past sessions) without moving a cursor: the last lines, a range, or grep matches with context.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.getHistory)
	add(srv, t.log, &mcp.Tool{Name: "search_output", Description: "Search every session's recorded output, newest first, for an RE2 regex.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.searchOutput)
	add(srv, t.log, &mcp.Tool{Name: "list_messages", Description: "A session's I/O records in order (output, input and who sent it, events) with previews; page with after_id.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.listMessages)
	add(srv, t.log, &mcp.Tool{Name: "get_message", Description: "I/O records from list_messages in full, paged by offset and max_bytes.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.getMessage)
}

// recordedID resolves a session id (or a live session's name) for the
// transcript tools.
func (t *tools) recordedID(id string) (string, error) {
	if !t.cat.Recording() {
		return "", errNoStore
	}
	return t.cat.Resolve(id), nil
}

// Text implements texter: plain lines, or grep -n style with matches
// "N:" and context "N-" and "--" between separate blocks.
func (r HistoryResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s lines %d-%d of %d", r.SessionID, r.FirstLine, r.LastLine, r.TotalLines)
	if r.Matches != nil {
		fmt.Fprintf(&b, " | %d matches", *r.Matches)
	}
	if r.LostLines > 0 {
		fmt.Fprintf(&b, " | %d lines pruned by retention", r.LostLines)
	}
	if r.Truncated {
		b.WriteString(" | truncated")
	}
	b.WriteString("]\n")
	for i, ln := range r.Lines {
		if !r.grep {
			b.WriteString(ln.Text)
			b.WriteByte('\n')
			continue
		}
		if i > 0 && ln.N != r.Lines[i-1].N+1 {
			b.WriteString("--\n")
		}
		sep := "-"
		if ln.Match {
			sep = ":"
		}
		fmt.Fprintf(&b, "%d%s%s\n", ln.N, sep, ln.Text)
	}
	return b.String()
}

func (t *tools) getHistory(_ context.Context, _ *mcp.CallToolRequest, in HistoryInput) (HistoryResult, error) {
	if in.Lines < 0 || in.Lines > history.MaxCount {
		return HistoryResult{}, fmt.Errorf("%w: lines must be between 1 and %d", session.ErrBadArgs, history.MaxCount)
	}
	if in.FromEnd < 0 || in.StartLine < 0 {
		return HistoryResult{}, fmt.Errorf("%w: from_end and start_line must be >= 0", session.ErrBadArgs)
	}
	if in.StartLine > 0 && in.FromEnd > 0 {
		return HistoryResult{}, fmt.Errorf("%w: give start_line (absolute) or from_end (relative to the end), not both", session.ErrBadArgs)
	}
	if in.Context < 0 || in.Context > history.MaxContext {
		return HistoryResult{}, fmt.Errorf("%w: context must be between 0 and %d", session.ErrBadArgs, history.MaxContext)
	}
	if in.MaxBytes < 0 || in.MaxBytes > history.MaxBytesCap || in.MaxMatches < 0 {
		return HistoryResult{}, fmt.Errorf("%w: max_bytes must be between 1 and %d and max_matches >= 0", session.ErrBadArgs, history.MaxBytesCap)
	}
	q := history.Query{Count: in.Lines, FromEnd: in.FromEnd, StartLine: in.StartLine, Context: in.Context,
		MaxMatches: in.MaxMatches, MaxBytes: in.MaxBytes, Raw: in.StripANSI != nil && !*in.StripANSI}
	if in.Grep != "" {
		re, err := re2.Compile(in.Grep)
		if err != nil {
			return HistoryResult{}, fmt.Errorf("%w: grep is not a valid RE2 regex: %v", session.ErrBadArgs, err)
		}
		q.Grep = re
	}
	q.LineCost = historyLineCost(q.Grep != nil)
	l, id, err := t.cat.OutputLog(in.SessionID)
	if errors.Is(err, store.ErrNotFound) {
		return HistoryResult{}, fmt.Errorf("%w: %s is neither a live session nor in the transcript store; call list_sessions", session.ErrSessionNotFound, excerpt.Q(in.SessionID))
	}
	if err != nil {
		return HistoryResult{}, err
	}
	h := history.Get(l, q)
	res := HistoryResult{SessionID: id, Lines: historyLines(h.Lines), TotalLines: h.TotalLines, FirstLine: h.FirstLine,
		LastLine: h.LastLine, LostLines: h.LostLines, Truncated: h.Truncated, grep: q.Grep != nil}
	if res.Lines == nil {
		res.Lines = []HistoryLine{}
	}
	if q.Grep != nil {
		res.Matches = &h.Matches
	}
	return res, nil
}

// Text implements texter.
func (r SearchResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d matches, %d bytes scanned, complete=%v]\n", r.Count, r.ScannedBytes, r.Complete)
	for _, m := range r.Matches {
		fmt.Fprintf(&b, "%s:%d: %s\n", m.SessionID, m.Line, m.Text)
	}
	return b.String()
}

const (
	defaultSearchResults = 50
	maxSearchResults     = 1000
	defaultSearchScan    = 1 << 30
	searchLineBytes      = 2000
)

func (t *tools) searchOutput(_ context.Context, _ *mcp.CallToolRequest, in SearchInput) (SearchResult, error) {
	if in.Pattern == "" {
		return SearchResult{}, fmt.Errorf("%w: pattern is required (an RE2 regex)", session.ErrBadArgs)
	}
	re, err := re2.Compile(in.Pattern)
	if err != nil {
		return SearchResult{}, fmt.Errorf("%w: pattern is not a valid RE2 regex: %v", session.ErrBadArgs, err)
	}
	if in.MaxResults < 0 || in.MaxResults > maxSearchResults || in.MaxScanBytes < 0 {
		return SearchResult{}, fmt.Errorf("%w: max_results must be between 1 and %d, max_scan_bytes >= 1", session.ErrBadArgs, maxSearchResults)
	}
	since, err := parseSince(in.Since)
	if err != nil {
		return SearchResult{}, err
	}
	o := store.SearchOptions{SessionIDs: in.SessionIDs, Since: since, MaxResults: in.MaxResults,
		MaxScanBytes: in.MaxScanBytes, MaxLineBytes: searchLineBytes}
	if o.MaxResults == 0 {
		o.MaxResults = defaultSearchResults
	}
	if o.MaxScanBytes == 0 {
		o.MaxScanBytes = defaultSearchScan
	}
	found, err := t.cat.Search(re, o)
	if err != nil {
		return SearchResult{}, err
	}
	res := SearchResult{Matches: []SearchMatch{}, ScannedBytes: found.Scanned, Complete: found.Complete}
	for _, m := range found.Matches {
		res.Matches = append(res.Matches, SearchMatch{SessionID: m.SessionID, Line: m.Line, Text: m.Text, Time: m.Time})
	}
	res.Count = len(res.Matches)
	return res, nil
}

// parseSince reads an RFC 3339 time or a duration back from now.
func parseSince(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return time.Now().Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%w: since must be an RFC 3339 time (2026-01-02T15:04:05Z) or a duration such as 90m or 24h, not %s", session.ErrBadArgs, excerpt.Q(s))
}

// Text implements texter.
func (r ListMessagesResult) Text() string {
	var b strings.Builder
	for _, m := range r.Messages {
		fmt.Fprintf(&b, "#%d %s %s %dB", m.ID, m.Time.Format("15:04:05.000"), m.Type, m.Size)
		if m.Event != "" {
			b.WriteString(" " + m.Event)
		}
		if m.From != "" {
			b.WriteString(" from=" + m.From)
		}
		if m.Redacted {
			b.WriteString(" [redacted]")
		}
		fmt.Fprintf(&b, " %q\n", m.Content)
	}
	if r.HasMore {
		fmt.Fprintf(&b, "[more: after_id=%d]\n", r.NextAfterID)
	}
	if len(r.Messages) == 0 {
		b.WriteString("no messages\n")
	}
	return b.String()
}

func (t *tools) listMessages(_ context.Context, _ *mcp.CallToolRequest, in ListMessagesInput) (ListMessagesResult, error) {
	id, err := t.recordedID(in.SessionID)
	if err != nil {
		return ListMessagesResult{}, err
	}
	if in.Limit < 0 || in.Limit > 500 || in.PreviewBytes < 0 || in.PreviewBytes > 4096 || in.AfterID < 0 {
		return ListMessagesResult{}, fmt.Errorf("%w: limit must be 1-500, preview_bytes 0-4096, after_id >= 0", session.ErrBadArgs)
	}
	q := store.MessageQuery{AfterID: in.AfterID, Limit: in.Limit, Preview: in.PreviewBytes}
	if q.Limit == 0 {
		q.Limit = 50
	}
	if q.Preview == 0 {
		q.Preview = 200
	}
	for _, name := range in.Types {
		k, ok := store.KindOf(name)
		if !ok {
			return ListMessagesResult{}, fmt.Errorf("%w: type %s: use input, output or event", session.ErrBadArgs, excerpt.Q(name))
		}
		q.Kinds = append(q.Kinds, k)
	}
	if _, err := t.store.Session(id); err != nil {
		return ListMessagesResult{}, t.notRecorded(id, err)
	}
	msgs, more, err := t.store.Messages(id, q)
	if err != nil {
		return ListMessagesResult{}, err
	}
	res := ListMessagesResult{SessionID: id, Messages: []MessageInfo{}, HasMore: more, NextAfterID: in.AfterID}
	for _, m := range msgs {
		res.Messages = append(res.Messages, messageInfo(m, true))
		res.NextAfterID = m.ID
	}
	return res, nil
}

func (t *tools) notRecorded(id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %s is not in the transcript store (call list_sessions for ids)", session.ErrSessionNotFound, excerpt.Q(id))
	}
	return err
}

func messageInfo(m store.Message, strip bool) MessageInfo {
	mi := MessageInfo{ID: m.ID, Type: m.Type, Time: m.Time, Size: m.Size, Offset: m.Offset, Stream: m.Stream,
		Event: m.Event, From: m.From, Redacted: m.Redacted}
	if m.Type == "output" && strip {
		mi.Content, _ = termtext.Clean(m.Content, true)
	} else {
		mi.Content = strings.ToValidUTF8(string(m.Content), "\uFFFD")
	}
	mi.More = m.Type != "event" && int64(len(m.Content)) < m.Size && !m.Redacted
	return mi
}

// Text implements texter.
func (r GetMessageResult) Text() string {
	var b strings.Builder
	for _, m := range r.Messages {
		fmt.Fprintf(&b, "#%d %s %s %dB", m.ID, m.Time.Format(time.RFC3339Nano), m.Type, m.Size)
		if m.Event != "" {
			b.WriteString(" " + m.Event)
		}
		if m.From != "" {
			b.WriteString(" from=" + m.From)
		}
		if m.Redacted {
			b.WriteString(" [redacted: typed at a password prompt, not stored]")
		}
		if m.More {
			fmt.Fprintf(&b, " [more from offset %d]", m.ContentOffset+int64(len(m.Content)))
		}
		b.WriteString("\n" + m.Content + "\n")
	}
	return b.String()
}

const maxMessageIDs = 50

func (t *tools) getMessage(_ context.Context, _ *mcp.CallToolRequest, in GetMessageInput) (GetMessageResult, error) {
	id, err := t.recordedID(in.SessionID)
	if err != nil {
		return GetMessageResult{}, err
	}
	ids := in.MessageIDs
	if in.MessageID != 0 {
		ids = append([]int64{in.MessageID}, ids...)
	}
	if len(ids) == 0 || len(ids) > maxMessageIDs {
		return GetMessageResult{}, fmt.Errorf("%w: give message_id or 1-%d message_ids from list_messages", session.ErrBadArgs, maxMessageIDs)
	}
	if in.Offset < 0 || in.MaxBytes < 0 || in.MaxBytes > session.MaxBytesCap {
		return GetMessageResult{}, fmt.Errorf("%w: offset must be >= 0 and max_bytes 1-%d", session.ErrBadArgs, session.MaxBytesCap)
	}
	per := in.MaxBytes
	if per == 0 {
		per = session.DefaultMaxBytes
	}
	// The reply stays under the cap however many ids are asked for.
	per = min(per, session.MaxBytesCap/int64(len(ids)))
	res := GetMessageResult{SessionID: id, Messages: []FullMessage{}}
	for _, mid := range ids {
		if mid <= 0 {
			return GetMessageResult{}, fmt.Errorf("%w: message id %d: ids come from list_messages", session.ErrBadArgs, mid)
		}
		m, err := t.store.Message(id, mid, in.Offset, per)
		if err != nil {
			return GetMessageResult{}, t.notRecorded(id, err)
		}
		mi := messageInfo(m, in.StripANSI == nil || *in.StripANSI)
		mi.More = m.Type != "event" && !m.Redacted && in.Offset+int64(len(m.Content)) < m.Size
		res.Messages = append(res.Messages, FullMessage{MessageInfo: mi, ContentOffset: in.Offset})
	}
	return res, nil
}

// clientName is who sent a request, for the transcript: the MCP client's
// name from initialize.
func clientName(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return ""
	}
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
		return p.ClientInfo.Name
	}
	return ""
}

// historyLineCost is what one line of get_history costs in the reply, so
// that max_bytes bounds what is sent: the line in the text block (with
// grep's "N:" in front) and its object in structuredContent, both as JSON
// escapes them.
func historyLineCost(grep bool) func(history.Line) int {
	return func(l history.Line) int {
		esc := jsonStringLen(l.Text) - 2 // without its quotes
		digits := len(strconv.FormatInt(l.N, 10))
		text := esc + len(`\n`)
		if grep {
			text += digits + 1
		}
		obj := len(`{"n":,"text":""},`) + digits + esc
		if l.Match {
			obj += len(`,"match":true`)
		}
		return text + obj
	}
}
