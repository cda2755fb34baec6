package proctree

// On Windows a session's tree is the membership of its Job Object, which
// the backend creates and holds (backend/job_windows.go): the job, not
// process ancestry or an inherited marker, says what belongs to a session,
// and TerminateJobObject ends it whole. So the walks and kills of this
// package have no Windows form, and what needs one is answered by the
// backend from the job.
//
// No guard process either: each job is created with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE and its only handle is agentty's, so
// when agentty dies, however it dies, the kernel closes the handle and
// ends every process of every session. StartGuard returns a guard that
// holds nothing and reports so.

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/windows"
)

// Descendants is answered by the session's job (backend), not here.
func Descendants(root int, marker string) ([]Proc, error) { return nil, ErrUnsupported }

// Running reports whether pid names a process that has not exited. A pid
// that cannot be opened for lack of rights is reported running, so no
// caller claims an exit it cannot see.
func Running(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return err == windows.ERROR_ACCESS_DENIED
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err != nil || ev == uint32(windows.WAIT_TIMEOUT)
}

// Terminate is the job's business on Windows (backend).
func Terminate(ctx context.Context, root int, marker string, grace time.Duration) (int, error) {
	return 0, ErrUnsupported
}

// TerminateUnder is the job's business on Windows (backend).
func TerminateUnder(ctx context.Context, parent, root int, marker string, grace time.Duration) (int, error) {
	return 0, ErrUnsupported
}

// SetSubreaper: Windows keeps no parent links to adopt orphans by.
func SetSubreaper() error { return ErrUnsupported }

// RunReaper only waits for ctx: Windows has no zombies to reap.
func RunReaper(ctx context.Context, owned func(pid int) bool) { <-ctx.Done() }

// Guard stands for the kernel's guarantee (KILL_ON_JOB_CLOSE): no process.
type Guard struct {
	done chan struct{}
	once sync.Once
}

func kernelGuard() *Guard { return &Guard{done: make(chan struct{})} }

// PendingGuard is a guard that is ready at once.
type PendingGuard struct{}

// BeginGuard returns the kernel's guard.
func BeginGuard(sp *Spawner, exe string, args []string, instance string) *PendingGuard {
	return &PendingGuard{}
}

// DeferGuard returns the kernel's guard.
func DeferGuard(sp *Spawner, exe string, args []string, instance string) *PendingGuard {
	return &PendingGuard{}
}

// Armed reports that the guard is in place: it always is.
func (p *PendingGuard) Armed() bool { return true }

// Wait returns the kernel's guard.
func (p *PendingGuard) Wait() (*Guard, error) { return kernelGuard(), nil }

// StartGuard returns the kernel's guard.
func StartGuard(sp *Spawner, exe string, args []string, instance string) (*Guard, error) {
	return kernelGuard(), nil
}

// PID returns 0: there is no guard process.
func (g *Guard) PID() int { return 0 }

// Done is closed by Close: the kernel's guard does not end while agentty
// runs.
func (g *Guard) Done() <-chan struct{} { return g.done }

// Close ends nothing: the jobs' handles are the guard, and they close with
// their sessions.
func (g *Guard) Close() error {
	g.once.Do(func() { close(g.done) })
	return nil
}

// RunGuard is never started on Windows.
func RunGuard() int {
	fmt.Fprintln(os.Stderr, "proctree: Windows needs no guard process: each session's Job Object ends its tree when agentty exits")
	return 2
}

// IgnoresSIGTERM: Windows has no signals to ignore.
func IgnoresSIGTERM(pid int) bool { return false }

// RunKeeper is never started on Windows: the job holds the tree.
func RunKeeper(args []string) int {
	fmt.Fprintln(os.Stderr, "proctree: Windows needs no keeper: each session's Job Object holds its tree")
	return 2
}
