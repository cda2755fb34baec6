package darwinproc

// decodePIDs reads proc_listpids's answer, int32 pids, dropping the zero
// slots it may leave.
func decodePIDs(b []byte) []int {
	out := make([]int, 0, len(b)/4)
	for off := 0; off+4 <= len(b); off += 4 {
		if p := int32(le.Uint32(b[off:])); p > 0 {
			out = append(out, int(p))
		}
	}
	return out
}
