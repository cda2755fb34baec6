package darwinproc

import "errors"

// TaskInfo is pid's PROC_PIDTASKINFO: CPU times, memory, counters.
func TaskInfo(pid int) (Task, error) {
	buf := make([]byte, sizeTaskInfo)
	n, err := pidinfo(pid, flavorTaskInfo, 0, buf)
	if err != nil {
		return Task{}, err
	}
	return decodeTaskInfo(buf[:n], tbFrequency())
}

// Threads is every thread of pid with its times and run state
// (PROC_PIDLISTTHREADS, then PROC_PIDTHREADINFO per thread). A thread that
// ends between the two is left out.
func Threads(pid int) ([]ThreadInfo, error) {
	guess := 16
	if t, err := TaskInfo(pid); err == nil {
		guess = int(t.ThreadNum) + 8
	}
	b, err := list(pid, flavorListThreads, sizeThreadID, guess)
	if err != nil {
		return nil, err
	}
	ids := decodeThreadIDs(b)
	out := make([]ThreadInfo, 0, len(ids))
	buf := make([]byte, sizeThreadInfo)
	var last error
	for _, id := range ids {
		n, err := pidinfo(pid, flavorThreadInfo, id, buf)
		if err != nil {
			if errors.Is(err, ErrNoProcess) || errors.Is(err, ErrPermission) {
				return nil, err
			}
			last = err
			continue
		}
		t, err := decodeThreadInfo(id, buf[:n])
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 && last != nil {
		return nil, last
	}
	return out, nil
}
