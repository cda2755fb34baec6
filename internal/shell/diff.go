package shell

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Diff compares two commands' outputs.
type Diff struct {
	Identical bool
	// Text is the unified diff, cut after the line limit with a last line
	// "[... N more diff lines ...]"; "" when Identical.
	Text      string
	Lines     int  // diff lines before any cut
	Truncated bool // Text was cut
}

// DiffOutputs is the unified diff from output a (labelled fromName) to b
// (toName) with context lines around each change, cut after limit lines
// (0: no cut).
func DiffOutputs(a, b, fromName, toName string, context, limit int) (Diff, error) {
	if a == b {
		return Diff{Identical: true}, nil
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(a), B: difflib.SplitLines(b),
		FromFile: fromName, ToFile: toName, Context: context,
	})
	if err != nil {
		return Diff{}, fmt.Errorf("diff: %w", err)
	}
	lines := strings.SplitAfter(d, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	out := Diff{Lines: len(lines)}
	if limit > 0 && len(lines) > limit {
		out.Truncated = true
		d = strings.Join(lines[:limit], "") + fmt.Sprintf("[... %d more diff lines ...]\n", len(lines)-limit)
	}
	out.Text = d
	return out, nil
}
