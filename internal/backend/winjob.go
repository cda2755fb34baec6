package backend

// What a Windows Job Object tells its completion port, decoded apart from
// the system calls so it is tested on every platform (exitwatch_windows.go
// feeds it).

// Job messages (winnt.h JOB_OBJECT_MSG_*): the completion packet's byte
// count is the message, its overlapped pointer the process id. x/sys/windows
// does not define them.
const (
	jobMsgActiveProcessZero   = 4
	jobMsgNewProcess          = 6
	jobMsgExitProcess         = 7
	jobMsgAbnormalExitProcess = 8
)

// jobState is what the watcher knows of one job.
type jobState struct {
	root     uint32
	rootGone bool   // the root exited (or the job emptied, which includes it)
	empty    bool   // no process is left in the job
	onRoot   func() // OnExit's callback, nil until set or once called
	onEmpty  func() // called once, when the job empties; may be nil
}

// jobTable holds the watched jobs by completion key. It is not safe for
// concurrent use: the watcher guards it. Its methods return the callbacks
// that are due, for the caller to run outside its lock.
type jobTable struct {
	jobs map[uintptr]*jobState
}

func newJobTable() *jobTable { return &jobTable{jobs: map[uintptr]*jobState{}} }

// add watches the job of key, whose first process is root.
func (t *jobTable) add(key uintptr, root uint32, onEmpty func()) {
	t.jobs[key] = &jobState{root: root, onEmpty: onEmpty}
}

// remove forgets key; late packets for it are ignored.
func (t *jobTable) remove(key uintptr) { delete(t.jobs, key) }

// len is how many jobs are watched.
func (t *jobTable) len() int { return len(t.jobs) }

// onExit sets f to be called when the root of key exits: at once (returned
// as due) when it already has.
func (t *jobTable) onExit(key uintptr, f func()) (due []func()) {
	j, ok := t.jobs[key]
	if !ok || j.rootGone {
		return []func(){f}
	}
	j.onRoot = f
	return nil
}

// message applies one completion packet. A job that empties has lost its
// root too: the port does not promise to deliver every message, and
// ACTIVE_PROCESS_ZERO then still ends a wait for the root.
func (t *jobTable) message(key uintptr, msg uint32, pid uint32) (due []func()) {
	j, ok := t.jobs[key]
	if !ok {
		return nil
	}
	switch msg {
	case jobMsgExitProcess, jobMsgAbnormalExitProcess:
		if pid == j.root {
			due = j.rootExited(due)
		}
	case jobMsgActiveProcessZero:
		due = j.rootExited(due)
		if !j.empty {
			j.empty = true
			if j.onEmpty != nil {
				due = append(due, j.onEmpty)
			}
		}
	}
	return due
}

func (j *jobState) rootExited(due []func()) []func() {
	j.rootGone = true
	if j.onRoot != nil {
		due = append(due, j.onRoot)
		j.onRoot = nil
	}
	return due
}

// isEmpty reports whether the job of key has emptied (or is not watched).
func (t *jobTable) isEmpty(key uintptr) bool {
	j, ok := t.jobs[key]
	return !ok || j.empty
}
