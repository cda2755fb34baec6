package mcpserver

import (
	"fmt"
	"strings"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

func readResult(s *session.Session, r session.Result) ReadResult {
	out := ReadResult{
		SessionID: s.ID, ReaderID: r.Reader, Output: r.Output.Text,
		Reason: string(r.Wait.Reason), State: string(r.Wait.State), StateDetail: r.Wait.Detail, Match: r.Wait.Match,
		Cursor: r.Output.Next, Line: r.Output.Line, Lines: r.Output.Lines, Truncated: r.Output.Truncated,
		Omitted: omitted(r.Output.Omitted), HasMore: r.Output.HasMore, LostBytes: r.Output.LostBytes, LostLines: r.Output.LostLines,
		ElapsedMs: float64(r.Wait.Elapsed.Microseconds()) / 1000, TUI: s.TUI(), Listening: sockets(r.Wait.Listening),
	}
	if om := r.Output.Omitted; om != nil {
		head, tail := out.Output[:r.Output.Cut], out.Output[r.Output.Cut:]
		if head != "" && !strings.HasSuffix(head, "\n") {
			head += "\n"
		}
		out.Output = head + fmt.Sprintf("[... %d lines (%d bytes) omitted; read_output cursor=%d overflow=page shows them ...]\n", om.Lines, om.Bytes, om.From) + tail
	}
	if st := s.Status(); st != nil && st.Lost != "" {
		out.State, out.LostReason = string(record.StateLost), st.Lost
	} else if st != nil && r.Wait.State == record.StateExited {
		out.State = string(record.StateExited)
		if st.Signal != "" {
			out.Signal = st.Signal
		} else {
			code := st.Code
			out.ExitCode = &code
		}
	}
	switch {
	case out.LostBytes > 0:
		out.Hint = fmt.Sprintf("%d bytes of older output are gone: evicted from memory (with --no-store; raise -session-memory) or dropped from the transcript store by retention (raise -retain-session-bytes); list_messages shows gap events", out.LostBytes)
	case out.HasMore:
		out.Hint = "more output is waiting: call read_output again"
	case out.State == string(record.StateLost):
		out.Hint = "the connection to the remote host dropped; start the program again (the connection is re-established)"
	case out.State == string(record.StateAwaitingPassword):
		out.Hint = passwordHint(s.ID)
	case out.TUI:
		out.Hint = "full-screen program (alternate screen): the output is redraw sequences; read_screen shows what a person sees"
	}
	return out
}

// passwordHint leads an agent at a password prompt to the path that keeps
// the secret out of the conversation, rather than typing one itself.
func passwordHint(id string) string {
	return `the program asks for a secret (echo is off): send_input {"session_id": "` + id +
		`", "secret": "ask_user"} has the user type it on a private page; never type a password yourself`
}

// Text renders a compact human/agent-readable form of a read result.
func (r ReadResult) Text() string {
	var b strings.Builder
	b.WriteString(r.Output)
	if r.Output != "" && !strings.HasSuffix(r.Output, "\n") {
		b.WriteString("\n")
	}
	if r.Output == "" {
		b.WriteString("(no new output)\n")
	}
	fmt.Fprintf(&b, "[%s %s", r.SessionID, r.State)
	writeEnding(&b, r.ExitCode, r.Signal, r.Reason, r.Match)
	writeListening(&b, r.Listening)
	fmt.Fprintf(&b, " | cursor=%d line=%d", r.Cursor, r.Line)
	if r.ReaderID != 0 {
		fmt.Fprintf(&b, " reader=%d", r.ReaderID)
	}
	if r.Truncated {
		b.WriteString(" | truncated")
	}
	if r.HasMore {
		b.WriteString(" | has_more")
	}
	if r.LostBytes > 0 {
		fmt.Fprintf(&b, " | lost=%dB", r.LostBytes)
	}
	b.WriteString("]")
	if r.Hint != "" {
		b.WriteString("\nhint: " + r.Hint)
	}
	return b.String()
}

// writeEnding renders how a read or screen wait ended: exit code or signal,
// the reason and the until match.
func writeEnding(b *strings.Builder, code *int, signal, reason, match string) {
	if code != nil {
		fmt.Fprintf(b, " code=%d", *code)
	}
	if signal != "" {
		fmt.Fprintf(b, " signal=%s", signal)
	}
	fmt.Fprintf(b, " | reason=%s", reason)
	if match != "" {
		fmt.Fprintf(b, " match=%q", match)
	}
}
