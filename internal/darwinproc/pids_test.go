package darwinproc

import (
	"slices"
	"testing"
)

func TestDecodePIDs_DropsEmptySlots(t *testing.T) {
	if got := decodePIDs(append(le.AppendUint32(le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 501), 0), 77), 0xffffffff), 9)); !slices.Equal(got, []int{501, 77}) {
		t.Fatalf("decodePIDs = %v, want [501 77]", got)
	}
}
