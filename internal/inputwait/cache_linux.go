//go:build linux && (amd64 || arm64)

package inputwait

import (
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/procfile"
)

// Inspector probes one session's target again and again, keeping the /proc
// files of the processes it inspects open between probes: re-reading an
// open stat, schedstat, syscall or children file from offset 0 makes the
// kernel regenerate it, so a steady probe costs one pread per file instead
// of open, read, read and close.
//
// A file under /proc/PID/task/TID is bound to that task, not to its number:
// once the task is gone every read fails with ESRCH, even if the number is
// reused. Such an entry is dropped and the path opened again, which finds
// whoever has the number now, exactly as an uncached probe would. Files of
// tasks a probe did not look at are closed at its end, and Close (or a probe
// that finds the root gone) closes the rest.
//
// The zero value is ready to use; it is safe for concurrent use. A probe
// that finds another one in progress runs uncached rather than wait.
type Inspector struct {
	mu     sync.Mutex
	cache  fdCache // guarded by mu
	closed bool    // guarded by mu; probes after Close run uncached

	inf inferState // the inferred verdict's history (AGENTTY_PORTABLE)
}

// exact is inspectExact through the Inspector's open files.
func (x *Inspector) exact(t Target) (Probe, error) {
	if !x.mu.TryLock() {
		return inspectExact(t)
	}
	defer x.mu.Unlock()
	if x.closed {
		return inspectExact(t)
	}
	in := inspectors.Get().(*inspector)
	defer inspectors.Put(in)
	in.reset()
	in.cache = &x.cache
	x.cache.gen++
	p, err := in.inspect(t)
	in.cache = nil
	x.cache.prune()
	return p, err
}

// Close closes every file the Inspector holds. Later probes still work,
// uncached. Call it when the session's process has ended.
func (x *Inspector) Close() error {
	x.mu.Lock()
	x.closed = true
	x.cache.gen++
	x.cache.prune()
	x.mu.Unlock()
	x.inf.mu.Lock()
	x.inf.scratch.close()
	x.inf.mu.Unlock()
	return nil
}

// leaf names a cached /proc file of a task, or a process's task directory.
type leaf uint8

const (
	leafStat leaf = iota
	leafSchedstat
	leafStatus
	leafSyscall
	leafChildren
	leafTask // the /proc/PID/task directory
)

var leafNames = [...]string{
	leafStat: "stat", leafSchedstat: "schedstat", leafStatus: "status",
	leafSyscall: "syscall", leafChildren: "children", leafTask: "task",
}

// fileKey names one cached file: /proc/pid/task/tid/leaf, or /proc/pid/task
// with tid -1. Files whose access is checked only when they are opened
// (fdinfo, mem) are never kept: a cached descriptor would outlive a setuid
// exec that a fresh open would be refused after.
type fileKey struct {
	pid, tid int32
	leaf     leaf
}

// cachedFile is an open /proc file and the probe that last read it.
type cachedFile struct {
	fd  int
	gen uint64
}

// fdCache is an Inspector's open files. Every entry's descriptor counts
// against the process-wide openBudget.
type fdCache struct {
	files map[fileKey]cachedFile
	gen   uint64 // the probe in progress
}

// lookup returns the open descriptor for k and marks it used by this probe.
func (c *fdCache) lookup(k fileKey) (int, bool) {
	f, ok := c.files[k]
	if !ok {
		return -1, false
	}
	f.gen = c.gen
	c.files[k] = f
	return f.fd, true
}

// keep adopts fd for k if the budget allows; false means the caller must
// close fd itself.
func (c *fdCache) keep(k fileKey, fd int) bool {
	if cachedFiles.Add(1) > openBudget() {
		cachedFiles.Add(-1)
		return false
	}
	if c.files == nil {
		c.files = make(map[fileKey]cachedFile)
	}
	c.files[k] = cachedFile{fd: fd, gen: c.gen}
	return true
}

// drop closes k's descriptor after its task turned out gone.
func (c *fdCache) drop(k fileKey) {
	if f, ok := c.files[k]; ok {
		delete(c.files, k)
		unix.Close(f.fd)
		cachedFiles.Add(-1)
	}
}

// prune closes the files the current probe did not use: their threads or
// processes have gone, or left the inspected group.
func (c *fdCache) prune() {
	for k, f := range c.files {
		if f.gen != c.gen {
			delete(c.files, k)
			unix.Close(f.fd)
			cachedFiles.Add(-1)
		}
	}
}

// len is the number of open files (for tests).
func (c *fdCache) len() int { return len(c.files) }

// cachedFiles counts the descriptors all Inspectors hold.
var cachedFiles atomic.Int64

// openBudget caps cachedFiles at a quarter of the descriptor limit, so a
// thousand sessions' caches can never starve the server of descriptors;
// beyond it probes open and close their files as before.
var openBudget = sync.OnceValue(func() int64 {
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) != nil {
		return 0
	}
	return int64(min(rl.Cur, 1<<30) / 4)
})

// readProc returns /proc/pid/task/tid/l (or, with tid -1, /proc/pid/l),
// through the Inspector's open files when the probe has them.
func (in *inspector) readProc(pid, tid int, l leaf, max int) ([]byte, error) {
	multi := l == leafChildren
	if in.cache == nil {
		in.path = procfile.Path(in.path, pid, tid, leafNames[l], -1)
		return readPath(in.path, &in.buf, max, multi)
	}
	k := fileKey{pid: int32(pid), tid: int32(tid), leaf: l}
	if fd, ok := in.cache.lookup(k); ok {
		if b, err := readFd(fd, &in.buf, max, multi); err == nil {
			return b, nil
		}
		// Its task has gone (or the read failed otherwise): whoever has
		// the number now, if anyone, is read by path as without a cache.
		in.cache.drop(k)
	}
	in.path = procfile.Path(in.path, pid, tid, leafNames[l], -1)
	fd, err := openPath(in.path, 0)
	if err != nil {
		return nil, err
	}
	b, err := readFd(fd, &in.buf, max, multi)
	if err != nil || !in.cache.keep(k, fd) {
		unix.Close(fd)
	}
	return b, err
}

// listTasks appends the thread ids of pid to in.tids, from a directory kept
// open between probes when the probe has a cache.
func (in *inspector) listTasks(pid int) error {
	start := len(in.tids)
	if in.cache == nil {
		in.path = procfile.Path(in.path, pid, -1, "task", -1)
		tids, err := readDirInts(in.path, in.dents, in.tids)
		in.tids = tids
		return err
	}
	k := fileKey{pid: int32(pid), tid: -1, leaf: leafTask}
	if fd, ok := in.cache.lookup(k); ok {
		if _, err := unix.Seek(fd, 0, 0); err == nil {
			tids, err := readDirFd(fd, in.dents, in.tids)
			if err == nil {
				in.tids = tids
				return nil
			}
		}
		in.tids = in.tids[:start]
		in.cache.drop(k)
	}
	in.path = procfile.Path(in.path, pid, -1, "task", -1)
	fd, err := openPath(in.path, unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	tids, err := readDirFd(fd, in.dents, in.tids)
	in.tids = tids
	if err != nil || !in.cache.keep(k, fd) {
		unix.Close(fd)
	}
	return err
}
