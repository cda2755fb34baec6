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
	add(srv, t.log, &mcp.Tool{Name: "read_screen", Description: "Return a PTY session's screen as a person sees it: use it when tui=true or output is redraw noise. Waits like read_output (defaults 5000/300 ms), until matching the screen.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.readScreen)
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
	writeEnding(&b, r.ExitCode, r.Signal, r.Reason, r.Match)
	if r.LostBytes > 0 {
		fmt.Fprintf(&b, " | lost=%dB", r.LostBytes)
	}
	if r.PendingBytes > 0 {
		fmt.Fprintf(&b, " | pending=%dB", r.PendingBytes)
	}
	b.WriteString("]")
	if r.State == string(record.StateAwaitingPassword) {
		b.WriteString("\nhint: " + passwordHint(r.SessionID))
	}
	return b.String()
}
