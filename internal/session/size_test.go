package session

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckSize_ScreenBudget accepts sizes up to the cell budget and
// refuses larger ones with a message that says what fits.
func TestCheckSize_ScreenBudget(t *testing.T) {
	for _, tc := range []struct {
		rows, cols int
		want       string // "" = accepted
	}{
		{24, 80, ""},
		{1000, 200, ""},
		{400, 500, ""},
		{1000, 1000, "1000x1000 is 1000000 cells, over the screen budget of 200000 cells per session; use fewer rows or cols (e.g. 200x1000)"},
		{500, 401, "500x401 is 200500 cells, over the screen budget of 200000 cells per session; use fewer rows or cols (e.g. 498x401)"},
		{1001, 10, "rows and cols must be between 1 and 1000 (got 1001x10)"},
		{0, 10, "rows and cols must be between 1 and 1000 (got 0x10)"},
	} {
		err := checkSize(tc.rows, tc.cols)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%dx%d: %v, want accepted", tc.rows, tc.cols, err)
		case tc.want != "" && (err == nil || !errors.Is(err, ErrBadArgs) || !strings.HasSuffix(err.Error(), tc.want)):
			t.Errorf("%dx%d: %v, want ErrBadArgs ending %q", tc.rows, tc.cols, err, tc.want)
		}
	}
}
