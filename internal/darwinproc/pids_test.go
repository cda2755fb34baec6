package darwinproc

import (
	"slices"
	"testing"
)

func TestDecodePIDs_DropsEmptySlots(t *testing.T) {
	if got := decodePIDs([]int32{501, 0, 77, -1}); !slices.Equal(got, []int{501, 77}) {
		t.Fatalf("decodePIDs = %v, want [501 77]", got)
	}
}
