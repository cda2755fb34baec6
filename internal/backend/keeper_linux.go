package backend

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/proctree"
)

// A session no cgroup holds has a keeper (proctree.RunKeeper): a child
// subreaper between agentty and the program, so that whatever the session
// starts stays below it however it escapes (env -i, setsid, double forks),
// and it ends that whole tree when agentty closes its control socket or
// dies. agentty still sees the program itself as the session's root (its
// pid, its process group, its exit); the keeper reports the exit, since
// only a parent can wait for a process.

// keeperReady bounds the wait for the keeper's report of the program's
// start: a Go process starting on a loaded machine can be slow.
const keeperReady = 10 * time.Second

// keeperGone bounds how long ending a keeper waits for it to exit: its own
// sweep is bounded (5 s), so longer means it is stuck.
const keeperGone = 15 * time.Second

// ErrKeeper is a keeper that did not do its part.
var ErrKeeper = errors.New("session keeper failed")

// kept is a program started through its keeper.
type kept struct {
	proc   *os.Process // the keeper, released once it reported the start
	keeper int         // its pid (Release clears proc's)
	conn   *net.UnixConn
	pid    int // the program's

	exited chan struct{} // closed when the program's exit was reported (or never will be)
	status exitReport    // set before exited closes
	gone   chan struct{} // closed when the keeper closed its end: it has exited
	once   sync.Once

	mu   sync.Mutex
	then func() // guarded by mu: called once exited closes (onExit)
}

// exitReport is the program's end as the keeper saw it.
type exitReport struct {
	ok     bool
	status syscall.WaitStatus
	ru     rootUsage
}

// startKept starts cmd through a keeper (exe and args: spec.Keeper): a
// spare one started before, if there is one, and starts the spare for the
// next start, both on start's thread. It sends the keeper cmd
// (proctree.KeptStart) with cmd's stdio and extra files and waits for its
// report of the program's start.
func startKept(cmd *exec.Cmd, keeper []string, start func(func())) (*kept, error) {
	ks := proctree.KeptStart{Path: cmd.Path, Argv: cmd.Args, Dir: cmd.Dir, Env: cmd.Env}
	if ks.Env == nil {
		ks.Env = os.Environ() // exec.Cmd's meaning of nil
	}
	if a := cmd.SysProcAttr; a != nil {
		ks.TTY, ks.Cloneflags, ks.AmbientCaps = a.Setsid, a.Cloneflags, a.AmbientCaps
		ks.UidMappings, ks.GidMappings, ks.GidMappingsEnableSetgroups = a.UidMappings, a.GidMappings, a.GidMappingsEnableSetgroups
	}
	var fds []int
	for _, x := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		f, ok := x.(*os.File)
		if !ok {
			return nil, fmt.Errorf("%w: stdio must be files", ErrKeeper)
		}
		fds = append(fds, int(f.Fd()))
	}
	for _, f := range cmd.ExtraFiles {
		fds = append(fds, int(f.Fd()))
	}
	ks.Files = len(fds)
	header, body, err := ks.Wire()
	if err != nil {
		return nil, err
	}
	key := strings.Join(keeper, "\x00")
	sp, pooled := spares.take(key), true
	if sp == nil {
		if sp, err = newSpare(keeper, start); err != nil {
			return nil, err
		}
		pooled = false
	}
	k, refused, err := sp.begin(header, unix.UnixRights(fds...), body, cmd.Path)
	if err != nil && pooled && !refused {
		// The spare died while it waited (killed by hand): a new one.
		if sp, err = newSpare(keeper, start); err != nil {
			return nil, err
		}
		k, _, err = sp.begin(header, unix.UnixRights(fds...), body, cmd.Path)
	}
	// The next start's keeper, started once this program runs: its Go
	// runtime starts while this session runs, not within the next one's
	// start.
	if next, nerr := newSpare(keeper, start); nerr == nil {
		spares.put(key, next)
	}
	return k, err
}

// spare is a keeper started before it is needed, waiting for its start.
type spare struct {
	proc *os.Process
	conn *net.UnixConn
}

// spareSet holds at most one spare per keeper command. A spare nobody
// takes ends with agentty: its socket's EOF when agentty's process exits,
// or its parent-death signal.
type spareSet struct {
	mu   sync.Mutex
	idle map[string]*spare
}

var spares = &spareSet{idle: map[string]*spare{}}

func (s *spareSet) take(key string) *spare {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.idle[key]
	delete(s.idle, key)
	return sp
}

func (s *spareSet) put(key string, sp *spare) {
	s.mu.Lock()
	old := s.idle[key]
	s.idle[key] = sp
	s.mu.Unlock()
	if old != nil {
		old.abandon()
	}
}

// newSpare starts a keeper on start's thread (its parent-death signal is
// bound to that thread) with its socket on fd 3.
func newSpare(keeper []string, start func(func())) (*spare, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("keeper socket: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "keeper-control")
	defer theirs.Close()
	ours := os.NewFile(uintptr(fds[0]), "keeper-control")
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, fmt.Errorf("keeper socket: %w", err)
	}
	kc := &exec.Cmd{
		Path: keeper[0], Args: keeper, Env: proctree.KeeperEnv(os.Environ()), ExtraFiles: []*os.File{theirs},
		Stderr: os.Stderr, // its complaints go to agentty's log
		// SIGTERM at agentty's death makes the keeper end its tree; its
		// own group keeps a terminal's signals aimed at agentty off it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM},
	}
	start(func() { err = kc.Start() })
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("start keeper: %w", err)
	}
	return &spare{proc: kc.Process, conn: c.(*net.UnixConn)}, nil
}

// abandon ends a spare nobody will use, or one that failed, and reaps it.
func (sp *spare) abandon() {
	sp.conn.Close()
	_ = sp.proc.Kill()
	_, _ = sp.proc.Wait()
}

// begin sends the start and waits for the keeper's report; refused says
// the keeper answered that the program could not start.
func (sp *spare) begin(header, rights, body []byte, path string) (k *kept, refused bool, err error) {
	conn := sp.conn
	_ = conn.SetDeadline(time.Now().Add(keeperReady))
	r := bufio.NewReader(conn)
	var line string
	_, _, err = conn.WriteMsgUnix(header, rights, nil)
	if err == nil {
		_, err = conn.Write(body)
	}
	if err == nil {
		line, err = r.ReadString('\n')
	}
	_ = conn.SetDeadline(time.Time{})
	word, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	n, nerr := strconv.Atoi(arg)
	switch {
	case err == nil && nerr == nil && word == "ok" && n > 0:
	case err == nil && nerr == nil && word == "err":
		sp.abandon()
		return nil, true, &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(n)}
	default:
		sp.abandon()
		return nil, false, fmt.Errorf("%w: no report of the start (%q): %v", ErrKeeper, line, err)
	}
	k = &kept{proc: sp.proc, keeper: sp.proc.Pid, conn: conn, pid: n, exited: make(chan struct{}), gone: make(chan struct{})}
	// Reaped by the server's reaper, as an orphan would be; its exit is
	// seen on the socket, so the handle is not needed.
	_ = sp.proc.Release()
	go k.read(r)
	return k, false, nil
}

// read takes the program's exit report, then waits for the keeper's end.
// It returns at EOF: the keeper exits once its tree is empty, when told
// to end it (end), or when agentty dies.
func (k *kept) read(r *bufio.Reader) {
	defer close(k.gone)
	defer k.conn.Close()
	reported := false
	defer func() {
		if !reported {
			k.exit()
		}
	}()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		f := strings.Fields(line)
		if reported || len(f) != 4 || f[0] != "exit" {
			continue
		}
		st, err1 := strconv.ParseUint(f[1], 10, 32)
		cpu, err2 := strconv.ParseInt(f[2], 10, 64)
		rss, err3 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		k.status = exitReport{ok: true, status: syscall.WaitStatus(st),
			ru: rootUsage{cpu: time.Duration(cpu) * time.Microsecond, maxRSS: rss * 1024}}
		reported = true
		k.exit()
	}
}

// exit publishes the program's end and calls back whoever waits for it.
func (k *kept) exit() {
	k.mu.Lock()
	close(k.exited)
	f := k.then
	k.then = nil
	k.mu.Unlock()
	if f != nil {
		f()
	}
}

// onExit calls f (which must not block) once the program's exit is
// reported, at once if it was. The report comes from the keeper, which
// reaped the program: a pidfd opened by its pid now could pin a process
// that recycled the pid.
func (k *kept) onExit(f func()) {
	k.mu.Lock()
	select {
	case <-k.exited:
		k.mu.Unlock()
		f()
		return
	default:
	}
	k.then = f
	k.mu.Unlock()
}

// wait returns the program's exit once the keeper reported it.
func (k *kept) wait(ru *rootUsage) (Exit, error) {
	<-k.exited
	if !k.status.ok {
		return Exit{Code: -1}, fmt.Errorf("%w: it ended without reporting how process %d ended", ErrKeeper, k.pid)
	}
	*ru = k.status.ru
	return exitOf(k.status.status), nil
}

// end tells the keeper to kill its whole tree (EOF on its socket) and
// waits for it to exit. Safe to call more than once.
func (k *kept) end() error {
	k.once.Do(func() { _ = k.conn.CloseWrite() })
	t := time.NewTimer(keeperGone)
	defer t.Stop()
	select {
	case <-k.gone:
		return nil
	case <-t.C:
		return fmt.Errorf("%w: keeper of process %d still running %v after it was told to end", ErrKeeper, k.pid, keeperGone)
	}
}
