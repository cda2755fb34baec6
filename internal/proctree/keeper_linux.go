//go:build linux

package proctree

import (
	"bytes"
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
// process exit code. It takes no arguments: everything comes over its
// control socket, fd 3.
//
// The keeper is a child subreaper: every process of the session that
// loses its parent, whatever it did to its environment, process group or
// session (env -i, setsid, double forks), is reparented to the keeper
// rather than to agentty, so the keeper's descendants are exactly the
// session's processes. agentty starts it before it is needed (a spare, so
// that a Go process's start is not part of a session's); it waits for the
// start (KeptStart, with the program's stdio and extra files attached as
// SCM_RIGHTS; its own environment is agentty's, so nothing looking for a
// session's variables finds it), starts the program, reports "ok PID" or
// "err ERRNO" on the socket, then reports the program's exit, reaps
// everything it adopts, and exits once its tree is empty. When the socket
// reaches EOF (agentty closed it, or died) or SIGTERM arrives (its
// parent-death signal), it SIGKILLs its whole tree until nothing is left,
// then exits; a spare that EOF finds unused just exits.
func RunKeeper(args []string) int {
	if len(args) != 0 {
		fmt.Fprintln(os.Stderr, "proctree: keeper: takes no arguments")
		return 2
	}
	ctl := os.NewFile(3, "keeper-control")
	// The program's parent-death signal fires when the thread that forked
	// it ends; this goroutine keeps its thread for the keeper's life.
	runtime.LockOSThread()
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE, syscall.SIGTTOU, syscall.SIGTTIN, syscall.SIGTSTP)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	subErr := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	ks, files, err := receiveStart(ctl)
	if errors.Is(err, io.EOF) {
		return 0 // a spare agentty no longer needs
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "proctree: keeper: %v\n", err)
		return 2
	}
	if subErr != nil {
		fmt.Fprintf(ctl, "err %d\n", errnoOf(subErr))
		return 1
	}
	cmd := ks.command(files)
	err = cmd.Start()
	// The keeper must not hold the session's terminal or pipes: their end
	// is how agentty sees the program's output end.
	for _, f := range files {
		f.Close()
	}
	if err != nil {
		fmt.Fprintf(ctl, "err %d\n", errnoOf(err))
		return 1
	}
	root := cmd.Process.Pid
	if _, err := fmt.Fprintf(ctl, "ok %d\n", root); err != nil {
		killTree(protectSelf(), reapAll)
		return 1
	}
	eof := make(chan struct{})
	go func() {
		// Ends with the process: at EOF it closes eof and returns.
		buf := make([]byte, 64)
		for {
			if _, err := ctl.Read(buf); err != nil {
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

// KeptStart is the start a keeper makes: the program and everything of
// its exec.Cmd a start sets (directory, environment, a terminal,
// namespaces). Its Files descriptors (stdin, stdout, stderr, then the
// extra files) travel with it as SCM_RIGHTS.
type KeptStart struct {
	Path string
	Argv []string
	Dir  string
	Env  []string
	// TTY makes the program the leader of a new session with fd 0 as its
	// controlling terminal; otherwise it leads a new process group.
	TTY         bool
	Cloneflags  uintptr
	UidMappings []syscall.SysProcIDMap
	GidMappings []syscall.SysProcIDMap
	// GidMappingsEnableSetgroups is SysProcAttr's.
	GidMappingsEnableSetgroups bool
	AmbientCaps                []uintptr
	Files                      int
}

// Wire is s as the keeper reads it: a header ("start N\n"), to be sent
// with the descriptors attached, then N bytes of JSON.
func (s KeptStart) Wire() (header, body []byte, err error) {
	body, err = json.Marshal(s)
	if err != nil {
		return nil, nil, err
	}
	return []byte("start " + strconv.Itoa(len(body)) + "\n"), body, nil
}

// maxKeptStart bounds what a keeper reads; exec takes less.
const maxKeptStart = 64 << 20

// maxKeptFiles bounds the descriptors a start brings.
const maxKeptFiles = 64

// receiveStart waits for the start on ctl: io.EOF if agentty closed the
// socket first.
func receiveStart(ctl *os.File) (KeptStart, []*os.File, error) {
	var s KeptStart
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(maxKeptFiles*4))
	var n, oobn int
	var err error
	for {
		n, oobn, _, _, err = unix.Recvmsg(int(ctl.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return s, nil, fmt.Errorf("read the start: %w", err)
	}
	if n == 0 {
		return s, nil, io.EOF
	}
	var files []*os.File
	msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			files = append(files, os.NewFile(uintptr(fd), "kept"))
		}
	}
	fail := func(err error) (KeptStart, []*os.File, error) {
		for _, f := range files {
			f.Close()
		}
		return s, nil, err
	}
	head, rest, ok := bytes.Cut(buf[:n], []byte("\n"))
	size, err := strconv.Atoi(strings.TrimPrefix(string(head), "start "))
	if !ok || err != nil || size < 0 || size > maxKeptStart {
		return fail(fmt.Errorf("bad start header %q", head))
	}
	body := make([]byte, size)
	k := copy(body, rest)
	if _, err := io.ReadFull(ctl, body[k:]); err != nil {
		return fail(fmt.Errorf("read the start: %w", err))
	}
	if err := json.Unmarshal(body, &s); err != nil {
		return fail(fmt.Errorf("read the start: %w", err))
	}
	if s.Files < 3 || len(files) != s.Files {
		return fail(fmt.Errorf("the start brought %d descriptors, not %d", len(files), s.Files))
	}
	return s, files, nil
}

// command is the program as the keeper starts it, on files (stdin,
// stdout, stderr, extra files), with a parent-death signal bound to the
// keeper's locked thread.
func (s KeptStart) command(files []*os.File) *exec.Cmd {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Cloneflags: s.Cloneflags,
		UidMappings: s.UidMappings, GidMappings: s.GidMappings,
		GidMappingsEnableSetgroups: s.GidMappingsEnableSetgroups, AmbientCaps: s.AmbientCaps}
	if s.TTY {
		attr.Setsid, attr.Setctty, attr.Ctty = true, true, 0
	} else {
		attr.Setpgid = true
	}
	return &exec.Cmd{Path: s.Path, Args: s.Argv, Dir: s.Dir, Env: s.Env, Stdin: files[0], Stdout: files[1], Stderr: files[2],
		ExtraFiles: files[3:], SysProcAttr: attr}
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
