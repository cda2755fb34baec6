package mcpserver

import "github.com/agentty/agentty/internal/history"

// historyLines converts lines, keeping nil nil.
func historyLines(ls []history.Line) []HistoryLine {
	return convert(ls, func(l history.Line) HistoryLine { return HistoryLine(l) })
}
