//go:build linux

package proctree

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/exemap"
)

// RunKeeper is the body of the hidden keeper subcommand, the parent of one
// session's program when no cgroup holds the session, and returns the
// process exit code. args are the words after the subcommand: the count
// of extra files, the program's path and argv.
//
// The keeper is a child subreaper: every process of the session that
// loses its parent, whatever it did to its environment, process group or
// session (env -i, setsid, double forks), is reparented to the keeper
// rather than to agentty, so the keeper's descendants are exactly the
// session's processes. It reads the rest of the start (KeptStart: the
// environment, the terminal, namespaces) from the control socket, the fd
// after the extra files (its own environment is agentty's, so nothing
// looking for a session's variables finds the keeper), starts the program
// on its own stdio and extra files, reports "ok PID" or "err ERRNO" on
// the control socket, then reports the program's exit,
// reaps everything it adopts, and exits once its tree is empty. When the
// control socket reaches EOF (agentty closed it, or died) or SIGTERM
// arrives (its parent-death signal), it SIGKILLs its whole tree until
// nothing is left, then exits.
func RunKeeper(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "proctree: keeper: usage: EXTRA PATH ARGV0 [ARG...]")
		return 2
	}
	extra, err := strconv.Atoi(args[0])
	if err != nil || extra < 0 {
		fmt.Fprintf(os.Stderr, "proctree: keeper: bad extra file count %q\n", args[0])
		return 2
	}
	ctl := os.NewFile(uintptr(3+extra), "keeper-control")
	// The program's parent-death signal fires when the thread that forked
	// it ends; this goroutine keeps its thread for the keeper's life.
	runtime.LockOSThread()
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE, syscall.SIGTTOU, syscall.SIGTTIN, syscall.SIGTSTP)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(ctl, "err %d\n", errnoOf(err))
		return 1
	}
	r := bufio.NewReader(ctl)
	ks, err := readStart(r)
	if err != nil {
		fmt.Fprintf(os.Stderr, "proctree: keeper: %v\n", err)
		return 2
	}
	cmd := ks.command(args[1], args[2:], extra)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(ctl, "err %d\n", errnoOf(err))
		return 1
	}
	root := cmd.Process.Pid
	if _, err := fmt.Fprintf(ctl, "ok %d\n", root); err != nil {
		killTree(protectSelf(), reapAll)
		return 1
	}
	// The keeper must not hold the session's terminal or pipes: their end
	// is how agentty sees the program's output end.
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := range 3 {
			_ = unix.Dup2(int(null.Fd()), fd)
		}
		null.Close()
	}
	eof := make(chan struct{})
	go func() {
		// Ends with the process: at EOF it closes eof and returns.
		for {
			if _, err := r.ReadByte(); err != nil {
				close(eof)
				return
			}
		}
	}()
	_, _ = exemap.Trim()
	prot := protectSelf()
	for {
		if reapKept(ctl, root) {
			return 0 // the program exited and nothing is left
		}
		select {
		case <-chld:
		case <-eof:
			return endKept(ctl, root, prot)
		case <-term:
			return endKept(ctl, root, prot)
		}
	}
}

// KeptStart is what a keeper needs besides the program's path and argv
// to start it as agentty would have: the environment, and the parts of
// its SysProcAttr a start sets (a terminal, namespaces).
type KeptStart struct {
	Env []string
	// TTY makes the program the leader of a new session with fd 0 as its
	// controlling terminal; otherwise it leads a new process group.
	TTY         bool
	Cloneflags  uintptr
	UidMappings []syscall.SysProcIDMap
	GidMappings []syscall.SysProcIDMap
	// GidMappingsEnableSetgroups is SysProcAttr's.
	GidMappingsEnableSetgroups bool
	AmbientCaps                []uintptr
}

// Wire is s as the keeper reads it: "start N\n" and N bytes of JSON.
func (s KeptStart) Wire() ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return append([]byte("start "+strconv.Itoa(len(b))+"\n"), b...), nil
}

// maxKeptStart bounds what a keeper reads; exec takes less.
const maxKeptStart = 64 << 20

func readStart(r *bufio.Reader) (KeptStart, error) {
	var s KeptStart
	line, err := r.ReadString('\n')
	if err != nil {
		return s, fmt.Errorf("read the start: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "start "))
	if err != nil || n < 0 || n > maxKeptStart {
		return s, fmt.Errorf("bad start header %q", line)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return s, fmt.Errorf("read the start: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("read the start: %w", err)
	}
	return s, nil
}

// command is the program as the keeper starts it, on the keeper's stdio
// and extra files, with a parent-death signal bound to the keeper's
// locked thread.
func (s KeptStart) command(path string, argv []string, extra int) *exec.Cmd {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Cloneflags: s.Cloneflags,
		UidMappings: s.UidMappings, GidMappings: s.GidMappings,
		GidMappingsEnableSetgroups: s.GidMappingsEnableSetgroups, AmbientCaps: s.AmbientCaps}
	if s.TTY {
		attr.Setsid, attr.Setctty, attr.Ctty = true, true, 0
	} else {
		attr.Setpgid = true
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, SysProcAttr: attr, Env: s.Env}
	for i := range extra {
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(3+i), "extra"))
	}
	return cmd
}

// KeeperEnv is env without any session marker: a keeper's own
// environment, so the guard's sweep, which kills by marker, leaves the
// keeper to end its tree.
func KeeperEnv(env []string) []string {
	return withoutEnv(env, EnvKey)
}

func errnoOf(err error) int {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return int(errno)
	}
	return int(syscall.EINVAL)
}

// reapKept reaps every child that has exited, reporting the program's
// status ("exit STATUS CPU_US MAXRSS_KB"), and reports whether the keeper
// has no child left.
func reapKept(ctl *os.File, root int) bool {
	for {
		var ws unix.WaitStatus
		var ru unix.Rusage
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, &ru)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ECHILD):
			return true
		case err != nil || pid == 0:
			return false
		}
		if pid == root {
			cpu := (ru.Utime.Nano() + ru.Stime.Nano()) / 1000
			_, _ = fmt.Fprintf(ctl, "exit %d %d %d\n", uint32(ws), cpu, ru.Maxrss)
		}
	}
}

// endKept kills the keeper's whole tree and reaps it, still reporting the
// program's exit, and returns the exit code: 1 if something survived.
func endKept(ctl *os.File, root int, prot protected) int {
	left := killTree(prot, func() { reapKept(ctl, root) })
	if left > 0 {
		fmt.Fprintf(os.Stderr, "proctree: keeper: %d processes survived\n", left)
		return 1
	}
	return 0
}

// killTree SIGKILLs every descendant of this process until it has no child
// left or the sweep's bounds run out, reaping the dead with reap before
// each look, and returns how many children are left. As a subreaper the keeper gets
// back every process whose parent dies meanwhile, so the loop ends only
// when the whole tree is gone.
func killTree(prot protected, reap func()) int {
	k := newKiller(prot)
	defer k.close()
	deadline := time.Now().Add(sweepBudget)
	self := os.Getpid()
	for {
		reap()
		kids := taskChildren(self)
		if len(kids) == 0 {
			return 0
		}
		if !time.Now().Before(deadline) {
			return len(kids)
		}
		procs, _ := collect(kids, nil, prot)
		k.signal(procs, nil, unix.SIGKILL)
		if k.pending() {
			k.wait(context.Background(), min(sweepRoundWait, time.Until(deadline)))
		} else {
			pause(min(retryPause, time.Until(deadline)))
		}
	}
}

// reapAll reaps every child that has exited.
func reapAll() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
	}
}
