package session

import (
	"reflect"
	"testing"
)

// TestApart_Splits: the text goes with the first key, every further key
// and Enter alone, EOF with the last; settings ride on every part.
func TestApart_Splits(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
		want []Input
	}{
		{"text, keys, enter, eof", Input{Text: "ab", Keys: []string{"tab", "up"}, Enter: true, EOF: true, From: "c"},
			[]Input{{Text: "ab", Keys: []string{"tab"}, From: "c"}, {Keys: []string{"up"}, From: "c"}, {Enter: true, EOF: true, From: "c"}}},
		{"keys only", Input{Keys: []string{"j", "k"}, KeepEcho: true},
			[]Input{{Keys: []string{"j"}, KeepEcho: true}, {Keys: []string{"k"}, KeepEcho: true}}},
		{"text and enter", Input{Text: "x", Enter: true}, []Input{{Text: "x"}, {Enter: true}}},
		{"enter only", Input{Enter: true}, []Input{{Enter: true}}},
		{"eof only", Input{EOF: true}, []Input{{EOF: true}}},
		{"nothing", Input{}, []Input{{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := apart(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("apart(%+v) = %+v; want %+v", tc.in, got, tc.want)
			}
		})
	}
}
