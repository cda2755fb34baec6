package termtext

import "strings"

// LastLine returns the newest non-blank line of the clean text of raw
// terminal output, clipped to max bytes (with "…" appended when clipped), or
// "" when there is none. Progress messages use it: a glance at where a long
// command is, not its output.
func LastLine(raw []byte, max int) string {
	text, _ := Clean(raw, true)
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			if max > 0 && len(l) > max {
				l = strings.ToValidUTF8(l[:max], "") + "…"
			}
			return l
		}
	}
	return ""
}
