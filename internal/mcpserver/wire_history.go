package mcpserver

import "github.com/agentty/agentty/internal/history"

// HistoryLine is one line of get_history: the wire form of history.Line.
type HistoryLine struct {
	N     int64  `json:"n"`
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}

// historyLines converts lines, keeping nil nil.
func historyLines(ls []history.Line) []HistoryLine {
	return convert(ls, func(l history.Line) HistoryLine { return HistoryLine(l) })
}
