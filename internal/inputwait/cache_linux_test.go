//go:build linux && (amd64 || arm64)

package inputwait

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/procfile"
)

// cachedTids returns the thread ids of pid the Inspector holds files of,
// with how many files each.
func cachedTids(x *Inspector, pid int) map[int]int {
	x.mu.Lock()
	defer x.mu.Unlock()
	got := map[int]int{}
	for k := range x.cache.files {
		if int(k.pid) == pid {
			got[int(k.tid)]++
		}
	}
	return got
}

// cachedFd returns the descriptor the Inspector holds for k, or -1.
func cachedFd(x *Inspector, k fileKey) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	if f, ok := x.cache.files[k]; ok {
		return f.fd
	}
	return -1
}

// threadScript runs a helper thread on "start" and ends it on "stop",
// printing its id; the main thread reads the terminal throughout.
const threadScript = `import sys, threading
ev = t = None
while True:
    line = sys.stdin.readline()
    if line.startswith("start"):
        ev = threading.Event(); t = threading.Thread(target=ev.wait); t.start()
        print("started", t.native_id, flush=True)
    elif line.startswith("stop"):
        ev.set(); t.join()
        print("stopped", flush=True)
`

// TestInspector_ThreadComesAndGoes: a thread's files are kept while it
// lives; once it has exited, its cached descriptors read ESRCH (never
// another task's data), and the next probe closes them.
func TestInspector_ThreadComesAndGoes(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "python3", "-c", threadScript)
	pid := c.target.Root
	waitDetail(t, c.target, AwaitingInput, "in read on fd 0 (tty)")
	if got := cachedTids(c.insp, pid); len(got) != 1 || got[pid] == 0 {
		t.Fatalf("files cached for threads %v, want only the main thread %d", got, pid)
	}
	if _, err := c.target.PTY.Write([]byte("start\n")); err != nil {
		t.Fatal(err)
	}
	// The whole line: the id may arrive after "started ".
	m := c.out.waitMatch(t, regexp.MustCompile(`started (\d+)\r?\n`))
	tid, _ := strconv.Atoi(m[1])
	waitState(t, c.target, "the main thread reading again", func(p Probe) bool {
		return p.State == AwaitingInput && cachedTids(c.insp, pid)[tid] > 0
	})
	got := cachedTids(c.insp, pid)
	if got[-1] != 1 {
		t.Errorf("files cached %v, want the task directory (tid -1) of a threaded process", got)
	}
	statFd := cachedFd(c.insp, fileKey{pid: int32(pid), tid: int32(tid), leaf: leafStat})
	if statFd < 0 {
		t.Fatalf("no stat file cached for thread %d: %v", tid, got)
	}

	if _, err := c.target.PTY.Write([]byte("stop\n")); err != nil {
		t.Fatal(err)
	}
	c.out.waitFor(t, "stopped")
	// join returns once the thread's Python code is done, a moment before
	// the kernel lets its task go (CI read the stat once in between).
	waitTaskGone(t, pid, tid)
	// Nothing has probed since the thread ended: its descriptor is still
	// cached and must refuse to read.
	c.insp.mu.Lock()
	var buf []byte
	_, err := readFd(statFd, &buf, 1<<16, false)
	c.insp.mu.Unlock()
	if err != errGone {
		t.Fatalf("reading the ended thread's cached stat: %v, want errGone (ESRCH)", err)
	}
	waitState(t, c.target, "the thread's files closed", func(p Probe) bool {
		return p.State == AwaitingInput && cachedTids(c.insp, pid)[tid] == 0
	})
	if got := cachedTids(c.insp, pid); len(got) != 1 || got[pid] == 0 {
		t.Errorf("files cached for threads %v after the thread ended, want only %d", got, pid)
	}
}

// TestInspector_ReusedNumberReadByPath: a cached file whose task has gone
// while its number now names a live thread is dropped and the path read
// again, so the probe sees the live thread, as an uncached probe would.
func TestInspector_ReusedNumberReadByPath(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "python3", "-q")
	waitFor(t, c.target, AwaitingInput)
	// A descriptor bound to a task that has ended: an exited child's.
	gone := startPipe(t, "true")
	waitDetail(t, gone.target, Running, "has exited")
	path := procfile.Path(nil, gone.target.Root, gone.target.Root, "stat", -1)
	deadFd, err := openPath(path, 0)
	if err != nil {
		t.Fatalf("open the zombie's stat: %v", err)
	}
	gone.cmd.Wait() // reaped: the task is gone, its number free
	var buf []byte
	if _, err := readFd(deadFd, &buf, 1<<16, false); err != errGone {
		unix.Close(deadFd)
		t.Fatalf("reading a reaped task's stat: %v, want errGone", err)
	}

	// Pretend the number of c's main thread used to be that task's.
	x := &Inspector{}
	defer x.Close()
	pid := c.target.Root
	k := fileKey{pid: int32(pid), tid: int32(pid), leaf: leafStat}
	x.mu.Lock()
	x.cache.gen++
	if !x.cache.keep(k, deadFd) {
		x.mu.Unlock()
		unix.Close(deadFd)
		t.Fatal("budget refused one descriptor")
	}
	x.mu.Unlock()
	p, err := x.Inspect(c.target)
	if err != nil || p.State != AwaitingInput || !strings.Contains(p.Detail, "(python3) in pselect6") {
		t.Fatalf("Inspect with a stale cached stat = %+v, %v; want python3 awaiting input", p, err)
	}
	if fd := cachedFd(x, k); fd < 0 || fd == deadFd && !isOpenOn(fd, pid) {
		t.Errorf("cached stat fd %d, want a fresh descriptor for the live thread", fd)
	}
}

// isOpenOn reports whether fd is a /proc file of pid.
func isOpenOn(fd, pid int) bool {
	target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	return err == nil && strings.HasPrefix(target, "/proc/"+strconv.Itoa(pid)+"/")
}

// execScript: a helper thread (not the main one) reads a line from the
// terminal and then execs a Python REPL, which takes over the process id.
const execScript = `import os, sys, threading
def reader():
    sys.stdin.readline()
    os.execvp("python3", ["python3", "-q"])
t = threading.Thread(target=reader); t.start(); t.join()
`

// TestInspector_Exec: the probed process execs from a non-main thread. The
// files of the process id follow it into the new image, the old thread's
// are dropped, and the new image's select set is read from its own memory.
func TestInspector_Exec(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "python3", "-c", execScript)
	pid := c.target.Root
	before := waitDetail(t, c.target, AwaitingInput, "in read on fd 0 (tty)")
	if !strings.Contains(before.Detail, " thread ") {
		t.Fatalf("Detail %q: want the helper thread named as the reader", before.Detail)
	}
	var helper int
	for tid := range cachedTids(c.insp, pid) {
		if tid > 0 && tid != pid {
			helper = tid
		}
	}
	if helper == 0 {
		t.Fatalf("no helper thread's files cached: %v", cachedTids(c.insp, pid))
	}
	if _, err := c.target.PTY.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	c.out.waitFor(t, ">>> ")
	after := waitDetail(t, c.target, AwaitingInput, "(python3) in pselect6 on fd 0 (tty)")
	if strings.Contains(after.Detail, " thread ") {
		t.Errorf("Detail %q: after exec the reader is the process itself", after.Detail)
	}
	if got := cachedTids(c.insp, pid); got[helper] != 0 || got[pid] == 0 {
		t.Errorf("files cached for %v after exec: want %d's and none of the old thread %d", got, pid, helper)
	}
	// The uncached probe agrees.
	if p, err := Inspect(c.target); err != nil || p.Detail != after.Detail {
		t.Errorf("uncached Inspect = %q, %v; cached said %q", p.Detail, err, after.Detail)
	}
}

// TestInspector_NoFdLeak: every descriptor an Inspector holds is closed
// once the process has gone (at the next probe) or by Close. Not parallel:
// it counts this process's descriptors on /proc files.
func TestInspector_NoFdLeak(t *testing.T) {
	for _, end := range []string{"probe after exit", "close"} {
		t.Run(strings.ReplaceAll(end, " ", "_"), func(t *testing.T) {
			c := startPTY(t, "sh", "-c", `python3 -q -c "
import threading, time
for _ in range(3): threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
input()"; true`)
			x := &Inspector{}
			defer x.Close()
			waitDetail(t, c.target, AwaitingInput, "(python3) in read")
			before := procFileFds(t)
			p, err := x.Inspect(c.target)
			if err != nil || p.State != AwaitingInput {
				t.Fatalf("Inspect = %+v, %v", p, err)
			}
			// sh (stat, children), python3's task directory and its four
			// threads' stat, schedstat and children, the reader's syscall.
			held := x.cache.len()
			if held < 2+1+4*3+1 {
				t.Fatalf("Inspector holds %d files, want at least 16", held)
			}
			if n := procFileFds(t); n != before+held {
				t.Fatalf("%d descriptors open, want %d + the %d cached", n, before, held)
			}
			if end == "close" {
				x.Close()
			} else {
				syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
				c.cmd.Wait()
				before = procFileFds(t) - held
				if p, err := x.Inspect(c.target); err != nil || !strings.Contains(p.Detail, "has exited") {
					t.Fatalf("Inspect after the exit = %+v, %v", p, err)
				}
			}
			if n := procFileFds(t); n != before || x.cache.len() != 0 {
				t.Fatalf("%d descriptors open (%d cached), want %d: all %d cached ones closed", n, x.cache.len(), before, held)
			}
		})
	}
}

// procFileFds counts this process's descriptors open on files of other
// processes under /proc (the link names the path they were opened by, also
// once the process is gone).
func procFileFds(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	self := "/proc/" + strconv.Itoa(os.Getpid()) + "/"
	n := 0
	for _, e := range ents {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil && strings.HasPrefix(target, "/proc/") && !strings.HasPrefix(target, self) {
			n++
		}
	}
	return n
}

// TestInspector_Budget: past the process-wide budget, probes read their
// files by path and keep nothing, with the same verdict. Not parallel: it
// replaces the budget.
func TestInspector_Budget(t *testing.T) {
	old := openBudget
	openBudget = func() int64 { return 0 }
	defer func() { openBudget = old }()
	c := startPTY(t, "python3", "-q")
	x := &Inspector{}
	defer x.Close()
	waitState(t, c.target, "awaiting input", func(Probe) bool {
		p, err := x.Inspect(c.target)
		return err == nil && p.State == AwaitingInput && strings.Contains(p.Detail, "pselect6 on fd 0 (tty)")
	})
	if n := x.cache.len(); n != 0 {
		t.Errorf("Inspector holds %d files with a budget of 0", n)
	}
}

// TestReadMem_FallsBackToProcMem: memory process_vm_readv cannot read
// (a PROT_NONE page) is read through /proc/PID/mem, as before.
func TestReadMem_FallsBackToProcMem(t *testing.T) {
	t.Parallel()
	const script = `import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
p = libc.mmap(None, 4096, 3, 0x22, -1, 0)
ctypes.memmove(p, b"agentty-probe", 13)
assert libc.mprotect(p, 4096, 0) == 0
print("addr", hex(p), flush=True)
sys.stdin.readline()
`
	c := startPipe(t, "python3", "-c", script)
	c.out.waitFor(t, "\n")
	text, _ := c.out.snapshot()
	m := regexp.MustCompile(`addr 0x([0-9a-f]+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no address in %q", text)
	}
	addr, _ := strconv.ParseUint(m[1], 16, 64)
	in := inspectors.Get().(*inspector)
	defer inspectors.Put(in)
	b := make([]byte, 13)
	if err := in.readVM(c.target.Root, addr, b); !errors.Is(err, unix.EFAULT) {
		t.Fatalf("process_vm_readv of a PROT_NONE page: %v, want EFAULT", err)
	}
	p := procCtx{pid: c.target.Root, memFd: -1}
	defer func() {
		if p.memFd >= 0 {
			unix.Close(p.memFd)
		}
	}()
	if err := in.readMem(&p, addr, b); err != nil || string(b) != "agentty-probe" {
		t.Fatalf("readMem = %q, %v; want the page read through /proc/PID/mem", b, err)
	}
}

// TestReadProc_ManyChildren: a children file longer than a page comes
// whole, cached or not (the read stops early only when it is complete).
func TestReadProc_ManyChildren(t *testing.T) {
	t.Parallel()
	const n = 700 // "NNNNNNN " each: well past 4 KiB
	c := startPipe(t, "python3", "-c", `import os, signal, sys
for _ in range(`+strconv.Itoa(n)+`):
    if os.fork() == 0:
        signal.pause(); os._exit(0)
print("forked", flush=True)
sys.stdin.readline()
`)
	// Each fork takes 5–10 ms on the CI machine, and more under load.
	c.out.waitForWithin(t, "forked", 2*time.Minute)
	pid := c.target.Root
	for _, cached := range []bool{false, true} {
		in := inspectors.Get().(*inspector)
		in.reset()
		var x Inspector
		if cached {
			in.cache = &x.cache
		}
		for round := 0; round < 2; round++ {
			b, err := in.readProc(pid, pid, leafChildren, 1<<20)
			if got := len(strings.Fields(string(b))); err != nil || got != n {
				t.Errorf("cached=%v round %d: %d children (%d bytes), %v; want %d", cached, round, got, len(b), err, n)
			}
		}
		in.cache = nil
		inspectors.Put(in)
		x.Close()
	}
}

// waitTaskGone waits until thread tid of pid has left /proc.
func waitTaskGone(t *testing.T, pid, tid int) {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task/%d", pid, tid)
	end := time.Now().Add(deadline)
	backoff := time.Millisecond
	for {
		_, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("thread %d of %d still in /proc after %v (%s: %v)", tid, pid, deadline, dir, err)
		}
		<-time.After(backoff) // no event tells another process's thread has been released
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}
