//go:build linux

package proctree

import (
	"bufio"
	"context"
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
// process exit code. args are the words after the subcommand: the mode
// (see keptCommand), the count of extra files, the program's path and
// argv.
//
// The keeper is a child subreaper: every process of the session that
// loses its parent, whatever it did to its environment, process group or
// session (env -i, setsid, double forks), is reparented to the keeper
// rather than to agentty, so the keeper's descendants are exactly the
// session's processes. It reads the program's environment from the
// control socket (the fd after the extra files: "env N\n" and N bytes of
// NUL-terminated entries; its own environment is agentty's, so nothing
// looking for a session's variables finds the keeper), starts the program
// on its own stdio and extra files, reports "ok PID" or "err ERRNO" on
// the control socket, then reports the program's exit,
// reaps everything it adopts, and exits once its tree is empty. When the
// control socket reaches EOF (agentty closed it, or died) or SIGTERM
// arrives (its parent-death signal), it SIGKILLs its whole tree until
// nothing is left, then exits.
func RunKeeper(args []string) int {
	if len(args) < 4 {
		fmt.Fprintln(os.Stderr, "proctree: keeper: usage: MODE EXTRA PATH ARGV0 [ARG...]")
		return 2
	}
	extra, err := strconv.Atoi(args[1])
	if err != nil || extra < 0 {
		fmt.Fprintf(os.Stderr, "proctree: keeper: bad extra file count %q\n", args[1])
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
	env, err := readEnv(r)
	if err != nil {
		fmt.Fprintf(os.Stderr, "proctree: keeper: %v\n", err)
		return 2
	}
	cmd := keptCommand(args[0], args[2], args[3:], extra, env)
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

// keptCommand is the program as the keeper starts it: mode "tty" makes it
// the leader of a new session with fd 0 as its controlling terminal,
// "group" the leader of a new process group.
func keptCommand(mode, path string, argv []string, extra int, env []string) *exec.Cmd {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if mode == "tty" {
		attr.Setsid, attr.Setctty, attr.Ctty = true, true, 0
	} else {
		attr.Setpgid = true
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, SysProcAttr: attr,
		Env: env}
	for i := range extra {
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(3+i), "extra"))
	}
	return cmd
}

// readEnv reads the program's environment: "env N\n", then N bytes of
// NUL-terminated entries.
func readEnv(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("read the environment: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "env "))
	if err != nil || n < 0 || n > maxKeptEnv {
		return nil, fmt.Errorf("bad environment header %q", line)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("read the environment: %w", err)
	}
	env := strings.Split(string(b), "\x00")
	return env[:len(env)-1], nil // after the last NUL: nothing
}

// maxKeptEnv bounds the environment a keeper accepts; exec takes less.
const maxKeptEnv = 64 << 20

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
