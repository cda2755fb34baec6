package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentty/agentty/internal/screen"
)

// maxRunsPerRow bounds the styled runs one row reports, so a screen of
// alternating styles (every cell its own run) stays a few KiB per row
// band: 60 rows of 20 runs is about 20 KiB of JSON.
const maxRunsPerRow = 20

// Run is [col, len, style]: an array, not an object, because a styled
// screen has many of them and agents pay for every key.
type Run screen.Run

// MarshalJSON writes [col, len, "style"].
func (r Run) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{r.Col, r.Len, r.Style})
}

// UnmarshalJSON reads [col, len, "style"].
func (r *Run) UnmarshalJSON(b []byte) error {
	a := []any{&r.Col, &r.Len, &r.Style}
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	if len(a) != 3 {
		return fmt.Errorf("run %s: want [col, len, style]", b)
	}
	return nil
}

// baseStyle is the style most cells of the screen have, "" when that is
// the default. A curses program that picks colours paints the whole
// screen with them (back colour erase); reporting runs against that base
// instead of the default keeps a reply to the cells that stand out.
func baseStyle(styles [][]screen.Run, cols int) string {
	cover := map[string]int{}
	for _, runs := range styles {
		styled := 0
		for _, r := range runs {
			cover[r.Style] += r.Len
			styled += r.Len
		}
		cover[""] += cols - styled
	}
	base := ""
	for st, n := range cover {
		if n > cover[base] || n == cover[base] && st < base {
			base = st
		}
	}
	return base
}

// defaultStyle names unstyled cells on a screen whose base is not the
// default.
const defaultStyle = "default"

// againstBase is a row's runs of cells whose style is not base: its
// styled runs, and with a non-default base its unstyled gaps too.
func againstBase(runs []screen.Run, base string, cols int) []screen.Run {
	if base == "" {
		return runs
	}
	var out []screen.Run
	x := 0
	gap := func(end int) {
		if end > x {
			out = append(out, screen.Run{Col: x, Len: end - x, Style: defaultStyle})
		}
	}
	for _, r := range runs {
		gap(r.Col)
		if r.Style != base {
			out = append(out, r)
		}
		x = r.Col + r.Len
	}
	gap(cols)
	return out
}

// appendRowAttrs adds row's runs (against base), if it has any.
func appendRowAttrs(attrs []RowAttrs, row int, styles [][]screen.Run, base string, cols int) []RowAttrs {
	if row >= len(styles) {
		return attrs
	}
	runs := againstBase(styles[row], base, cols)
	if len(runs) == 0 {
		return attrs
	}
	ra := RowAttrs{Row: row, More: max(0, len(runs)-maxRunsPerRow)}
	for _, r := range runs[:min(len(runs), maxRunsPerRow)] {
		ra.Runs = append(ra.Runs, Run(r))
	}
	return append(attrs, ra)
}

// text writes the row as "attrs row 2: 2+8 reverse; 10+3 bold fg=red".
func (a RowAttrs) text(b *strings.Builder) {
	fmt.Fprintf(b, "attrs row %d:", a.Row)
	for i, r := range a.Runs {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(b, " %d+%d %s", r.Col, r.Len, r.Style)
	}
	if a.More > 0 {
		fmt.Fprintf(b, "; (+%d runs)", a.More)
	}
	b.WriteByte('\n')
}

// screenOutputSchema is ScreenResult's schema as the SDK would infer it,
// with a Run as the [col, len, style] array it is marshalled as.
func screenOutputSchema() *jsonschema.Schema {
	three := 3
	run := &jsonschema.Schema{Type: "array", MinItems: &three, MaxItems: &three,
		PrefixItems: []*jsonschema.Schema{{Type: "integer"}, {Type: "integer"}, {Type: "string"}},
		Description: "[col, len, style]: 0-based screen column, columns, style words"}
	s, err := jsonschema.For[ScreenResult](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[Run](): run}})
	if err != nil {
		panic(fmt.Sprintf("read_screen output schema: %v", err)) // a programming error, found by every test
	}
	return s
}
