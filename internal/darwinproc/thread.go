package darwinproc

import "fmt"

// struct proc_threadinfo.
const (
	sizeThreadInfo      = 112
	offThreadUserTime   = 0
	offThreadSystemTime = 8
	offThreadRunState   = 24
	offThreadFlags      = 28
	offThreadSleepTime  = 32
	offThreadName       = 48
	lenThreadName       = 64 // MAXTHREADNAMESIZE
	sizeThreadID        = 8  // PROC_PIDLISTTHREADS gives uint64 handles
)

// Thread run states, pth_run_state (TH_STATE_*).
const (
	RunRunning         = 1
	RunStopped         = 2
	RunWaiting         = 3
	RunUninterruptible = 4
	RunHalted          = 5
)

// TH_FLAGS_IDLE: the thread is an idle thread (pth_flags).
const threadFlagIdle = 0x2

// ThreadInfo is one thread's struct proc_threadinfo.
type ThreadInfo struct {
	ID uint64 // the handle PROC_PIDLISTTHREADS gave; stable while the thread lives
	// UserTime and SystemTime are nanoseconds: the kernel fills them from
	// thread_basic_info's seconds and microseconds, not from Mach ticks.
	UserTime, SystemTime uint64
	RunState             int32 // Run* above
	Idle                 bool  // TH_FLAGS_IDLE
	SleepTime            int32 // seconds the thread has slept, as the kernel counts it
	Name                 string
}

func decodeThreadInfo(id uint64, b []byte) (ThreadInfo, error) {
	if len(b) < sizeThreadInfo {
		return ThreadInfo{}, fmt.Errorf("proc_threadinfo: %d of %d bytes: %w", len(b), sizeThreadInfo, ErrShort)
	}
	return ThreadInfo{
		ID:         id,
		UserTime:   le.Uint64(b[offThreadUserTime:]),
		SystemTime: le.Uint64(b[offThreadSystemTime:]),
		RunState:   int32(le.Uint32(b[offThreadRunState:])),
		Idle:       le.Uint32(b[offThreadFlags:])&threadFlagIdle != 0,
		SleepTime:  int32(le.Uint32(b[offThreadSleepTime:])),
		Name:       cString(b[offThreadName : offThreadName+lenThreadName]),
	}, nil
}

// decodeThreadIDs reads PROC_PIDLISTTHREADS's answer. A zero handle is a
// slot the kernel did not fill.
func decodeThreadIDs(b []byte) []uint64 {
	ids := make([]uint64, 0, len(b)/sizeThreadID)
	for off := 0; off+sizeThreadID <= len(b); off += sizeThreadID {
		if id := le.Uint64(b[off:]); id != 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// cString is b up to its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
