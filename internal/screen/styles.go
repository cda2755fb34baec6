package screen

import (
	"fmt"
	"image/color"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// Run is a stretch of cells in one row drawn with the same non-default
// style (colours and attributes), named as Style describes.
type Run struct {
	Col, Len int    // first screen column (0-based) and number of columns
	Style    string // e.g. "reverse", "bold fg=red bg=#1e1e1e"
}

// rowRuns appends the styled runs of row y to runs. Cells are merged
// while their style is equal, so a highlighted menu item is one run. The
// right half of a wide character joins its left half's run whatever style it holds. Called under mu.
func (s *Screen) rowRuns(y int, runs []Run) []Run {
	cols := s.emu.Width()
	var cur uv.Style
	start := -1 // where the run of cur started; -1: no run open
	flush := func(end int) {
		if start >= 0 && !cur.IsZero() {
			runs = append(runs, Run{Col: start, Len: end - start, Style: StyleName(&cur)})
		}
	}
	for x := range cols {
		var st uv.Style
		if c := s.emu.CellAt(x, y); c != nil {
			if c.Width == 0 && c.Content == "" && start >= 0 {
				continue // the right half of a wide character
			}
			st = c.Style
		}
		if start >= 0 && st.Equal(&cur) {
			continue
		}
		flush(x)
		cur, start = st, x
	}
	flush(cols)
	return runs
}

// attrNames name uv's attribute bits, in the order StyleName lists them.
var attrNames = []struct {
	bit  uint8
	name string
}{
	{uv.AttrBold, "bold"}, {uv.AttrFaint, "faint"}, {uv.AttrItalic, "italic"},
	{uv.AttrBlink, "blink"}, {uv.AttrRapidBlink, "rapid_blink"}, {uv.AttrReverse, "reverse"},
	{uv.AttrConceal, "conceal"}, {uv.AttrStrikethrough, "strike"},
}

var underlineNames = map[ansi.Underline]string{
	ansi.UnderlineSingle: "underline", ansi.UnderlineDouble: "underline=double", ansi.UnderlineCurly: "underline=curly",
	ansi.UnderlineDotted: "underline=dotted", ansi.UnderlineDashed: "underline=dashed",
}

// basicNames are the 16 ANSI colours' names, by index.
var basicNames = [16]string{"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
	"bright_black", "bright_red", "bright_green", "bright_yellow", "bright_blue", "bright_magenta", "bright_cyan", "bright_white"}

// StyleName names a style in words rather than SGR codes, attributes
// first: "bold underline reverse fg=red bg=236 ul=#ff0000". Colours are
// the 16 ANSI names, a 256-colour palette index (16-255; 0-15 are the
// ANSI colours, drawn the same) or #rrggbb for direct colour.
func StyleName(st *uv.Style) string {
	var parts []string
	for _, a := range attrNames {
		if st.Attrs&a.bit != 0 {
			parts = append(parts, a.name)
		}
		if a.bit == uv.AttrItalic && st.Underline != ansi.UnderlineNone {
			// Underline reads best after bold and italic, as SGR numbers it.
			name, ok := underlineNames[st.Underline]
			if !ok {
				name = fmt.Sprintf("underline=%d", st.Underline)
			}
			parts = append(parts, name)
		}
	}
	for _, c := range []struct {
		key string
		c   color.Color
	}{{"fg=", st.Fg}, {"bg=", st.Bg}, {"ul=", st.UnderlineColor}} {
		if c.c != nil {
			parts = append(parts, c.key+colorName(c.c))
		}
	}
	return strings.Join(parts, " ")
}

func colorName(c color.Color) string {
	switch c := c.(type) {
	case ansi.BasicColor:
		if int(c) < len(basicNames) {
			return basicNames[c]
		}
	case ansi.IndexedColor:
		if int(c) < len(basicNames) {
			return basicNames[c]
		}
		return fmt.Sprint(int(c))
	}
	r, g, b, a := c.RGBA()
	if a == 0 {
		return "transparent"
	}
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}
