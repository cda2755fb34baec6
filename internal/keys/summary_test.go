package keys

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestSummary_NamesExactlyTheTable expands Summary (its ranges, aliases and
// spellings) and checks that it names every key Bytes accepts and no other,
// so the send_input description and the docs, which show Summary, say
// exactly what agentty accepts.
func TestSummary_NamesExactlyTheTable(t *testing.T) {
	parts := strings.Split(Summary, "; ")
	if len(parts) != 3 {
		t.Fatalf("Summary has %d parts, want keys; aliases; spellings: %q", len(parts), Summary)
	}
	var listed []string
	for _, item := range strings.Split(parts[0], ", ") {
		listed = append(listed, expand(t, item)...)
	}
	// "return, esc and ctrl+space are enter, escape and ctrl+@"
	names, targets, ok := strings.Cut(parts[1], " are ")
	if !ok {
		t.Fatalf("aliases part %q has no ' are '", parts[1])
	}
	split := func(s string) []string { return strings.Split(strings.Replace(s, " and ", ", ", 1), ", ") }
	aliases, of := split(names), split(targets)
	if len(aliases) != len(of) {
		t.Fatalf("aliases %q and targets %q differ in number", aliases, of)
	}
	for i, a := range aliases {
		if !slices.Contains(listed, of[i]) {
			t.Errorf("alias %s is of %s, which is not listed", a, of[i])
		}
		if x, y := table[a], table[of[i]]; x == "" || x != y {
			t.Errorf("alias %s sends %q, %s sends %q", a, x, of[i], y)
		}
	}
	got := append(slices.Clone(listed), aliases...)
	slices.Sort(got)
	if want := Names(); !slices.Equal(got, want) {
		t.Errorf("Summary names %d keys, the table %d:\nSummary: %q\ntable:   %q", len(got), len(want), got, want)
	}
	for _, n := range listed {
		if _, ok := table[n]; !ok {
			t.Errorf("Summary lists %q, which Bytes refuses", n)
		}
	}
	// "... ctrl+c may also be written ctrl-c, control+c, C-c or ^C"
	_, spellings, ok := strings.Cut(parts[2], "written ")
	if !ok || !strings.HasPrefix(parts[2], "names are case-insensitive") {
		t.Fatalf("spellings part %q", parts[2])
	}
	for _, s := range append(split(strings.Replace(spellings, " or ", ", ", 1)), "CTRL+C", "Ctrl+C") {
		if b, err := Bytes(s); err != nil || b != "\x03" {
			t.Errorf("Bytes(%q) = %q, %v; Summary says it is ctrl+c", s, b, err)
		}
	}
}

// expand turns "f1..f12" and "ctrl+a..ctrl+z" into the names they stand for.
func expand(t *testing.T, item string) []string {
	first, last, isRange := strings.Cut(item, "..")
	if !isRange {
		return []string{item}
	}
	var out []string
	switch {
	case first == "f1":
		var n int
		if _, err := fmt.Sscanf(last, "f%d", &n); err != nil {
			t.Fatalf("range %q: %v", item, err)
		}
		for i := 1; i <= n; i++ {
			out = append(out, fmt.Sprintf("f%d", i))
		}
	case strings.HasPrefix(first, "ctrl+") && len(first) == 6 && len(last) == 6:
		for c := first[5]; c <= last[5]; c++ {
			out = append(out, "ctrl+"+string(c))
		}
	default:
		t.Fatalf("Summary has a range the test cannot expand: %q", item)
	}
	return out
}

// TestBytes_UnknownKeyListsSummary checks that a refused key's error shows
// the same list as the tool description.
func TestBytes_UnknownKeyListsSummary(t *testing.T) {
	_, err := Bytes("ctrl+shift+banana")
	if err == nil || err.Error() != `unknown key "ctrl+shift+banana"; known keys: `+Summary {
		t.Fatalf("err = %v", err)
	}
}

// TestSummary_InDocs checks that the docs' key list is Summary, verbatim
// (a code span, so markdown keeps its backslash).
func TestSummary_InDocs(t *testing.T) {
	const doc = "../../docs/processes.md"
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "`"+Summary+"`") {
		t.Errorf("%s does not show the key list as keys.Summary says it:\n%s", doc, Summary)
	}
}
