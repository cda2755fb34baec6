//go:build linux

package proctree

// listProcs lists every live (non-zombie) process from /proc. A process
// that exits while the list is read is left out.
func listProcs() ([]Proc, error) {
	pids, err := listPIDs()
	if err != nil {
		return nil, err
	}
	out := make([]Proc, 0, len(pids))
	for _, pid := range pids {
		st, err := readStat(pid)
		if err != nil || st.dead() {
			continue
		}
		out = append(out, st.Proc)
	}
	return out, nil
}

// procStart returns pid's start time, or false if it is gone or a zombie.
func procStart(pid int) (uint64, bool) {
	st, err := readStat(pid)
	if err != nil || st.dead() {
		return 0, false
	}
	return st.StartTime, true
}
