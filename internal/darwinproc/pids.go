package darwinproc

// decodePIDs drops the zero slots proc_listpids may leave in its answer.
func decodePIDs(raw []int32) []int {
	out := make([]int, 0, len(raw))
	for _, p := range raw {
		if p > 0 {
			out = append(out, int(p))
		}
	}
	return out
}
