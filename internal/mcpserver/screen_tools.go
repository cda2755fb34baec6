package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/screen"
	"github.com/agentty/agentty/internal/session"
)

// maxScrollback caps the scrollback lines one read_screen returns; the
// session keeps screen.DefaultScrollback.
const maxScrollback = screen.DefaultScrollback

// screenWaits: a screen is usually wanted once the program has drawn it,
// which awaiting input or a short quiet tells.
var screenWaits = waitDefaults{timeout: 5 * time.Second, settle: 300 * time.Millisecond}

// registerScreen adds the tools that read the rendered terminal.
func (t *tools) registerScreen(srv *mcp.Server) {
	add(srv, t.log, &mcp.Tool{Name: "read_screen", Description: "Return the terminal screen of a PTY session as a person sees it: the visible rows as text, cursor position and visibility, alternate-screen flag (full-screen programs like vim, less, top, htop, curses menus), window title, size. " +
		"Use it instead of read_output when the session's tui is true or output looks like redraw noise. " +
		"changed_only returns only the rows that changed since this reader's last read_screen; scrollback adds lines that scrolled off the top; attrs adds colours and attributes. " +
		"Waits first like read_output: returns when until matches the screen text, the program awaits input, it exits, the screen has not changed for settle_ms, or timeout_ms passes (defaults 5000 / 300).",
		OutputSchema: screenOutputSchema(),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.readScreen)
}

// ScreenInput are read_screen's arguments.
type ScreenInput struct {
	SessionID   string   `json:"session_id" jsonschema:"session id (or name)"`
	ReaderID    int      `json:"reader_id,omitempty" jsonschema:"reader whose last screen changed_only compares with (default 0)"`
	ChangedOnly bool     `json:"changed_only,omitempty" jsonschema:"return only the rows whose text (with attrs: or style) changed since this reader's last read_screen (all rows the first time and after a resize)"`
	Scrollback  int      `json:"scrollback,omitempty" jsonschema:"also return up to this many lines that scrolled off the top of the main screen, oldest first (0-100, default 0)"`
	Attrs       bool     `json:"attrs,omitempty" jsonschema:"also return colours and attributes: per row, runs [col, len, style] of cells unlike the screen's base style, e.g. [2, 8, \"reverse fg=red bg=236\"] (at most 20 per row)"`
	TimeoutMs   *int     `json:"timeout_ms,omitempty" jsonschema:"hard deadline in ms; 0 = return the screen now; capped at 60000 (default 5000)"`
	Until       string   `json:"until,omitempty" jsonschema:"RE2 regex over the screen text (rows joined by newlines, ^ and $ matching at row ends); returns as soon as the screen shows it"`
	SettleMs    *int     `json:"settle_ms,omitempty" jsonschema:"return once the screen has not changed for this many ms (counted from the last output, which may be before the call); 0 = off (default 300)"`
	ReturnOn    []string `json:"return_on,omitempty" jsonschema:"events that end the wait besides timeout_ms, as in read_output (default all): match, input, settle, exit"`
}

// ChangedRow is one row that changed since the reader's last screen.
type ChangedRow struct {
	Row  int    `json:"row" jsonschema:"0-based row from the top"`
	Text string `json:"text"`
}

// ScreenResult is read_screen's result.
type ScreenResult struct {
	SessionID    string       `json:"session_id"`
	Rows         int          `json:"rows"`
	Cols         int          `json:"cols"`
	Lines        []string     `json:"lines,omitempty" jsonschema:"the visible screen, one string per row from the top, trailing blanks trimmed; empty rows at the bottom are left out (rows gives the height)"`
	ChangedOnly  bool         `json:"changed_only,omitempty"`
	Changed      []ChangedRow `json:"changed,omitempty" jsonschema:"with changed_only: the rows whose text changed"`
	Cursor       Cursor       `json:"cursor" jsonschema:"0-based cursor row (index into lines) and column, and whether it is shown"`
	AltScreen    bool         `json:"alt_screen" jsonschema:"a full-screen program is drawing on the alternate screen"`
	Title        string       `json:"title,omitempty" jsonschema:"window title the program set"`
	Scrollback   []string     `json:"scrollback,omitempty" jsonschema:"lines above the screen, oldest first"`
	AttrsBase    string       `json:"attrs_base,omitempty" jsonschema:"with attrs, when most cells are not in the default style: their style; attrs then lists the cells that differ from it (unstyled ones as \"default\")"`
	Attrs        []RowAttrs   `json:"attrs,omitempty" jsonschema:"with attrs: the rows (of lines, or with changed_only of changed) with cells in another style than attrs_base (default: unstyled)"`
	Reason       string       `json:"reason" jsonschema:"why the call returned: matched, awaiting_input, exited, settled, timeout, no_wait, cancelled"`
	State        string       `json:"state" jsonschema:"running, awaiting_input, awaiting_password or exited"`
	StateDetail  string       `json:"state_detail,omitempty"`
	ExitCode     *int         `json:"exit_code,omitempty"`
	Signal       string       `json:"signal,omitempty"`
	Match        string       `json:"match,omitempty" jsonschema:"screen text the until regex matched"`
	LostBytes    int64        `json:"lost_bytes,omitempty" jsonschema:"output evicted before it was rendered: parts of the screen may be stale"`
	PendingBytes int64        `json:"pending_bytes,omitempty" jsonschema:"output not rendered yet: call read_screen again"`
	ElapsedMs    float64      `json:"elapsed_ms"`
}

func (t *tools) readScreen(ctx context.Context, _ *mcp.CallToolRequest, in ScreenInput) (ScreenResult, error) {
	s, err := t.mgr.Get(in.SessionID)
	if err != nil {
		return ScreenResult{}, err
	}
	if in.Scrollback < 0 || in.Scrollback > maxScrollback {
		return ScreenResult{}, fmt.Errorf("%w: scrollback must be between 0 and %d", session.ErrBadArgs, maxScrollback)
	}
	w, err := WaitParams{TimeoutMs: in.TimeoutMs, Until: in.Until, SettleMs: in.SettleMs, ReturnOn: in.ReturnOn}.options(screenWaits)
	if err != nil {
		return ScreenResult{}, err
	}
	r, err := s.Screen(ctx, session.ScreenOptions{Reader: in.ReaderID, ChangedOnly: in.ChangedOnly, Scrollback: in.Scrollback, Styles: in.Attrs, Wait: w})
	if err != nil {
		return ScreenResult{}, err
	}
	sn := r.Snapshot
	out := ScreenResult{
		SessionID: s.ID, Rows: sn.Rows, Cols: sn.Cols, ChangedOnly: in.ChangedOnly,
		Cursor: Cursor(sn.Cursor), AltScreen: sn.AltScreen, Title: sn.Title, Scrollback: sn.Scrollback,
		Reason: string(r.Wait.Reason), State: string(r.Wait.State), StateDetail: r.Wait.Detail, Match: r.Wait.Match,
		LostBytes: r.Lost, PendingBytes: r.Pending, ElapsedMs: float64(r.Wait.Elapsed.Microseconds()) / 1000,
	}
	if in.Attrs {
		out.AttrsBase = baseStyle(sn.Styles, sn.Cols)
	}
	if in.ChangedOnly {
		for _, row := range r.Changed {
			out.Changed = append(out.Changed, ChangedRow{Row: row, Text: sn.Lines[row]})
			out.Attrs = appendRowAttrs(out.Attrs, row, sn.Styles, out.AttrsBase, sn.Cols)
		}
	} else {
		out.Lines = screen.TrimBottom(sn.Lines)
		for row := range sn.Styles {
			out.Attrs = appendRowAttrs(out.Attrs, row, sn.Styles, out.AttrsBase, sn.Cols)
		}
	}
	if st := s.Status(); st != nil && out.State == string(record.StateExited) {
		if st.Signal != "" {
			out.Signal = st.Signal
		} else {
			code := st.Code
			out.ExitCode = &code
		}
	}
	return out, nil
}

// Text renders the screen, then one status line.
func (r ScreenResult) Text() string {
	var b strings.Builder
	switch {
	case r.ChangedOnly && len(r.Changed) == 0:
		b.WriteString("(no rows changed)\n")
	case r.ChangedOnly:
		for _, c := range r.Changed {
			fmt.Fprintf(&b, "row %d: %s\n", c.Row, c.Text)
		}
	default:
		for _, l := range r.Scrollback {
			b.WriteString(l + "\n")
		}
		if len(r.Scrollback) > 0 {
			b.WriteString("---- screen ----\n")
		}
		for _, l := range r.Lines {
			b.WriteString(l + "\n")
		}
	}
	if r.AttrsBase != "" {
		fmt.Fprintf(&b, "attrs base: %s (cells below differ)\n", r.AttrsBase)
	}
	for _, a := range r.Attrs {
		a.text(&b)
	}
	fmt.Fprintf(&b, "[%s screen %dx%d", r.SessionID, r.Cols, r.Rows)
	if r.AltScreen {
		b.WriteString(" alt_screen")
	}
	fmt.Fprintf(&b, " cursor=%d,%d", r.Cursor.Row, r.Cursor.Col)
	if !r.Cursor.Visible {
		b.WriteString(" hidden")
	}
	if r.Title != "" {
		fmt.Fprintf(&b, " title=%q", r.Title)
	}
	fmt.Fprintf(&b, " | %s", r.State)
	if r.ExitCode != nil {
		fmt.Fprintf(&b, " code=%d", *r.ExitCode)
	}
	if r.Signal != "" {
		fmt.Fprintf(&b, " signal=%s", r.Signal)
	}
	fmt.Fprintf(&b, " | reason=%s", r.Reason)
	if r.Match != "" {
		fmt.Fprintf(&b, " match=%q", r.Match)
	}
	if r.LostBytes > 0 {
		fmt.Fprintf(&b, " | lost=%dB", r.LostBytes)
	}
	if r.PendingBytes > 0 {
		fmt.Fprintf(&b, " | pending=%dB", r.PendingBytes)
	}
	b.WriteString("]")
	return b.String()
}
