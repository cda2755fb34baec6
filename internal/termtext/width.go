package termtext

import (
	"sync"

	"github.com/charmbracelet/x/ansi"
)

// bmpWidths caches the width of every Basic Multilingual Plane rune. Asking
// ansi per rune allocates and costs ~100 ns, which dominated CJK output; the
// table costs 64 KiB and about a millisecond, once, on first non-Latin text.
var bmpWidths = sync.OnceValue(func() *[0x10000]uint8 {
	var t [0x10000]uint8
	for r := range rune(len(t)) {
		t[r] = uint8(measure(r))
	}
	return &t
})

// runeWidth returns how many cells a non-ASCII r occupies: 0, 1 or 2.
// Exactness only matters when text is later overwritten, so per-rune wcwidth
// is enough (no grapheme clustering, which would cost far more).
func runeWidth(r rune) int {
	switch {
	case r >= 0xa0 && r < 0x300 && r != 0xad:
		// Latin-1 and Latin Extended hold no combining or wide runes
		// (U+00AD soft hyphen is a format character).
		return 1
	case r < 0x10000:
		return int(bmpWidths()[r])
	default:
		return measure(r)
	}
}

// measure asks ansi for the width of r, clamped to what a cell model handles.
func measure(r rune) int {
	return max(0, min(2, ansi.StringWidthWc(string(r))))
}
