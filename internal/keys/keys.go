// Package keys maps the key names agents use ("enter", "ctrl+c", "up",
// "f5") to the bytes a terminal sends for them.
package keys

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentty/agentty/internal/excerpt"
)

// table holds xterm's sequences in normal cursor mode; programs in
// application mode (vim, less) accept these too.
var table = map[string]string{
	"enter": "\r", "return": "\r", "tab": "\t", "escape": "\x1b", "esc": "\x1b",
	"backspace": "\x7f", "delete": "\x1b[3~", "insert": "\x1b[2~", "space": " ",
	"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"home": "\x1b[H", "end": "\x1b[F", "pageup": "\x1b[5~", "pagedown": "\x1b[6~",
	"shift+tab": "\x1b[Z",
	"f1":        "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
	"f5": "\x1b[15~", "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~",
	"f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
	"ctrl+@": "\x00", "ctrl+space": "\x00", "ctrl+[": "\x1b", "ctrl+\\": "\x1c",
	"ctrl+]": "\x1d", "ctrl+^": "\x1e", "ctrl+_": "\x1f",
}

func init() {
	for c := 'a'; c <= 'z'; c++ {
		table["ctrl+"+string(c)] = string(rune(c - 'a' + 1))
	}
}

// Summary names every key Bytes accepts, in the compact form that tool
// descriptions, errors and the docs show. TestSummary_NamesExactlyTheTable
// expands it and compares it with the table, so the two cannot disagree.
const Summary = "enter, tab, shift+tab, escape, backspace, delete, insert, space, " +
	"up, down, left, right, home, end, pageup, pagedown, f1..f12, " +
	"ctrl+a..ctrl+z, ctrl+@, ctrl+[, ctrl+\\, ctrl+], ctrl+^, ctrl+_; " +
	"return, esc and ctrl+space are enter, escape and ctrl+@; " +
	"names are case-insensitive and ctrl+c may also be written ctrl-c, control+c, C-c or ^C"

// Names lists every key name, sorted.
func Names() []string {
	names := make([]string, 0, len(table))
	for k := range table {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Bytes returns the bytes for a key name. Names are case-insensitive and
// accept "C-c", "^C" and "ctrl-c" spellings for control keys.
func Bytes(name string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch {
	case strings.HasPrefix(n, "c-"), strings.HasPrefix(n, "ctrl-"), strings.HasPrefix(n, "control+"):
		n = "ctrl+" + n[strings.IndexAny(n, "-+")+1:]
	case len(n) == 2 && n[0] == '^':
		n = "ctrl+" + n[1:]
	}
	if b, ok := table[n]; ok {
		return b, nil
	}
	return "", fmt.Errorf("unknown key %s; known keys: %s", excerpt.Q(name), Summary)
}
