package shell

import "testing"

// Outputs are split as difflib.SplitLines does, so one ending in a newline
// has an empty last line (the " " context line at the end), as
// diff_commands has always shown it.
func TestDiffOutputs_Cases(t *testing.T) {
	for _, tc := range []struct {
		name           string
		a, b           string
		context, limit int
		want           Diff
	}{
		{"identical", "x\ny\n", "x\ny\n", 3, 400, Diff{Identical: true}},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", 3, 400, Diff{Lines: 8, Text: "--- a: one\n+++ b: two\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n \n"}},
		{"no context", "a\nb\nc\n", "a\nB\nc\n", 0, 0, Diff{Lines: 5, Text: "--- a: one\n+++ b: two\n@@ -2 +2 @@\n-b\n+B\n"}},
		{"cut", "a\nb\nc\n", "a\nB\nc\n", 3, 4, Diff{Lines: 8, Truncated: true,
			Text: "--- a: one\n+++ b: two\n@@ -1,4 +1,4 @@\n a\n[... 4 more diff lines ...]\n"}},
		{"limit equal to lines", "a", "b", 3, 5, Diff{Lines: 5, Text: "--- a: one\n+++ b: two\n@@ -1 +1 @@\n-a\n+b\n"}},
		{"empty against text", "", "new\n", 3, 400, Diff{Lines: 5, Text: "--- a: one\n+++ b: two\n@@ -1 +1,2 @@\n+new\n \n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DiffOutputs(tc.a, tc.b, "a: one", "b: two", tc.context, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
