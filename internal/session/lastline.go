package session

import (
	"bytes"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/termtext"
)

// lastLineWindow is how much of the newest output LastLine looks at: enough
// for a long log line, small enough to be cheap a few times a second.
const lastLineWindow = 4096

// maxLastLine bounds LastLine's result; a progress message is a glance, not
// the output (read_output returns that).
const maxLastLine = 200

// LastLine returns the newest non-blank line of clean output (escape
// sequences stripped, carriage-return redraws collapsed), clipped to 200
// bytes, or "" when there is none. It reads only the last 4 KiB, never moves
// a reader's cursor, and is safe to call concurrently with the pump.
func (s *Session) LastLine() string {
	st := s.log.Stats()
	from := max(st.Start, st.End-lastLineWindow)
	sl := s.log.Read(from, -1, lastLineWindow, outlog.Both)
	data := sl.Data
	if sl.From > st.Start {
		// Started mid-line (maybe mid-escape): begin at the next full line.
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return termtext.LastLine(data, maxLastLine)
}
