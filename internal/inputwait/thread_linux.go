//go:build linux && (amd64 || arm64)

package inputwait

import (
	"encoding/binary"
	"errors"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/procfile"
)

// threadClass is what one thread is doing, as far as the decision cares.
type threadClass uint8

const (
	thGone      threadClass = iota // vanished or zombie: ignored
	thStopped                      // T/t: job-control or trace stop
	thReading                      // blocked waiting for the input to become readable
	thWaitChild                    // blocked in wait4/waitid
	thPipeRead                     // blocked reading an anonymous pipe (pipeline stage)
	thFutex                        // blocked on a futex (idle helper thread)
	thBlocked                      // blocked in something else (sleep, sockets, files)
	thBusy                         // running, uninterruptible, or not inspectable
)

// threadResult is the classification plus what Detail needs to explain it.
type threadResult struct {
	class  threadClass
	tid    int
	state  byte
	nr     int    // syscall number, -1 if none
	name   string // syscall name, "" if not in the table
	fd     int    // the input fd being read, -1 if none
	fdKind string // "tty", "/dev/tty" or "pipe"
	why    string // extra reason for thBusy
	// timeout is the timeout of a select/poll/epoll wait on the input, or
	// -1 when it waits without one: a timed wait means the program runs on
	// by itself soon (vim after Escape), not only when input comes.
	timeout time.Duration
}

// fdClass is what an fd of an inspected process refers to.
type fdClass uint8

const (
	fdOther fdClass = iota
	fdInputTTY
	fdInputDevTTY
	fdInputPipe
	fdAnonPipe
)

func (c fdClass) isInput() bool { return c == fdInputTTY || c == fdInputDevTTY || c == fdInputPipe }

func (c fdClass) String() string {
	switch c {
	case fdInputTTY:
		return "tty"
	case fdInputDevTTY:
		return "/dev/tty"
	case fdInputPipe:
		return "pipe"
	}
	return ""
}

type fdEntry struct {
	fd    int
	class fdClass
}

// errDenied marks /proc access refused by ptrace access checks.
var errDenied = errors.New("permission denied")

func deniedErr(err error) error {
	if err == unix.EACCES || err == unix.EPERM {
		return errDenied
	}
	return err
}

// procCtx is the per-process state while its threads are classified.
type procCtx struct {
	pid   int
	ttyNr uint64 // controlling terminal, for the /dev/tty rule
	memFd int    // /proc/PID/mem, opened on first need; -1 if not open
}

// fdClassOf stats /proc/PID/fd/N once per process and fd.
func (in *inspector) fdClassOf(p *procCtx, fd int) fdClass {
	if fd < 0 {
		return fdOther
	}
	for _, e := range in.fds {
		if e.fd == fd {
			return e.class
		}
	}
	c := fdOther
	var st unix.Stat_t
	in.path = procfile.Path(in.path, p.pid, -1, "fd", fd)
	if statPath(in.path, &st) == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFCHR:
			if in.ptyMode && st.Rdev == in.tty {
				c = fdInputTTY
			} else if in.ptyMode && st.Rdev == devTTY && p.ttyNr == in.tty {
				c = fdInputDevTTY
			}
		case unix.S_IFIFO:
			if !in.ptyMode && in.haveInput && st.Dev == in.pipeDev && st.Ino == in.pipeIno {
				c = fdInputPipe
			} else if st.Dev == in.pipefsDev {
				c = fdAnonPipe
			}
		}
	}
	in.fds = append(in.fds, fdEntry{fd, c})
	return c
}

// readMem reads len(b) bytes of the process's memory at addr:
// process_vm_readv looks at the process's memory as it is now in one call,
// with no descriptor that could outlive an exec. Where it cannot read (it
// is refused, missing, or the pages are not readable) /proc/PID/mem,
// which may read more (FOLL_FORCE), has the last word.
func (in *inspector) readMem(p *procCtx, addr uint64, b []byte) error {
	if p.memFd < 0 && in.readVM(p.pid, addr, b) == nil {
		return nil
	}
	if p.memFd < 0 {
		in.path = procfile.Path(in.path, p.pid, -1, "mem", -1)
		fd, err := openPath(in.path, 0)
		if err != nil {
			return deniedErr(err)
		}
		p.memFd = fd
	}
	for len(b) > 0 {
		n, err := unix.Pread(p.memFd, b, int64(addr))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return deniedErr(err)
		}
		if n == 0 {
			return unix.EIO
		}
		b, addr = b[n:], addr+uint64(n)
	}
	return nil
}

// readVM reads len(b) bytes at addr with process_vm_readv.
func (in *inspector) readVM(pid int, addr uint64, b []byte) error {
	for len(b) > 0 {
		in.iov[0].Base = &b[0]
		in.iov[0].SetLen(len(b))
		in.riov[0] = unix.RemoteIovec{Base: uintptr(addr), Len: len(b)}
		n, err := unix.ProcessVMReadv(pid, in.iov[:], in.riov[:], 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return unix.EIO
		}
		b, addr = b[n:], addr+uint64(n)
	}
	return nil
}

// Limits on how much of a blocked syscall's arguments are decoded; far
// beyond what an interactive program passes.
const (
	maxSelectFds = 1 << 16
	maxPollFds   = 1 << 16
	maxFdinfo    = 1 << 20
)

// pollRdNorm is POLLRDNORM, which x/sys does not define on every arch;
// it is 0x40 on both supported ones.
const pollRdNorm = 0x40

// classifyThread decides what thread tid of process p is doing. Without
// decode, a sleeping thread is reported as thBlocked without reading which
// syscall it sleeps in.
func (in *inspector) classifyThread(p *procCtx, tid int, decode bool) threadResult {
	r := threadResult{tid: tid, nr: -1, fd: -1, timeout: -1}
	var st statInfo
	b, err := in.readProc(p.pid, tid, leafStat, 1<<16)
	if err != nil || !parseStat(b, &st) {
		r.class = thGone
		return r
	}
	r.state = st.state
	if c, final := stateClass(st.state); final {
		r.class = c
		return r
	}
	if !decode {
		r.class = thBlocked
		return r
	}

	var sc sysState
	b, err = in.readProc(p.pid, tid, leafSyscall, 1<<16)
	if err != nil {
		if err == errGone {
			r.class = thGone
			return r
		}
		r.class, r.why = thBusy, "cannot read its syscall ("+deniedErr(err).Error()+"); assuming running"
		return r
	}
	if !parseSyscall(b, &sc) || sc.running {
		r.class, r.state = thBusy, 'R'
		return r
	}
	if sc.nr < 0 {
		r.class, r.why = thBusy, "is blocked outside a syscall"
		return r
	}
	r.nr = sc.nr
	kind, name := lookupSyscall(sc.nr)
	r.name = name
	r.class = thBlocked
	in.view = localView{in: in, p: p}
	classifyWait(&in.view, &sc, kind, &r)
	return r
}

// classifyWait decides what a thread blocked in syscall sc (of the given
// kind) waits for, from what v tells about its process. The local inspector
// and remote probe answers (Remote) share it, so both decide alike.
func classifyWait(v procView, sc *sysState, kind sysKind, r *threadResult) {
	switch kind {
	case sysWait:
		r.class = thWaitChild
	case sysFutex:
		r.class = thFutex
	case sysRead:
		fd := int(int32(sc.args[0]))
		switch c := v.fdClass(fd); {
		case c.isInput():
			r.class, r.fd, r.fdKind = thReading, fd, c.String()
		case c == fdAnonPipe:
			r.class = thPipeRead
		}
	case sysSelect:
		decodeSelect(v, sc, r)
	case sysPoll:
		decodePoll(v, sc, r)
	case sysEpoll:
		decodeEpoll(v, sc, r)
	}
	if r.class == thReading && kind != sysRead {
		r.timeout = decodeTimeout(v, sc, r.name)
	}
}

// procView is what decoding a blocked wait needs from the waiting process.
// Memory is decoded little-endian: so are amd64 and arm64, here and on
// remote hosts.
type procView interface {
	fdClass(fd int) fdClass
	// readMem fills b from the process's memory at addr; errDenied when
	// access is refused.
	readMem(addr uint64, b []byte) error
	// fdinfo returns /proc/PID/fdinfo/FD; errDenied when refused.
	fdinfo(fd int) ([]byte, error)
	// scratch returns a buffer of n bytes, valid until the next call.
	scratch(n int) []byte
}

// localView is procView over this machine's /proc (inspector.view).
type localView struct {
	in *inspector
	p  *procCtx
}

func (v *localView) fdClass(fd int) fdClass { return v.in.fdClassOf(v.p, fd) }

func (v *localView) readMem(addr uint64, b []byte) error { return v.in.readMem(v.p, addr, b) }

func (v *localView) fdinfo(fd int) ([]byte, error) {
	v.in.path = procfile.Path(v.in.path, v.p.pid, -1, "fdinfo", fd)
	b, err := readPath(v.in.path, &v.in.buf, maxFdinfo, false)
	return b, deniedErr(err)
}

func (v *localView) scratch(n int) []byte { return v.in.growMem(n) }

// decodeTimeout reads the timeout argument of a blocked select, poll or
// epoll wait; -1 means none (wait forever) or unreadable.
func decodeTimeout(v procView, sc *sysState, name string) time.Duration {
	ms := func(v uint64) time.Duration {
		if int32(v) < 0 {
			return -1
		}
		return time.Duration(int32(v)) * time.Millisecond
	}
	switch name {
	case "poll":
		return ms(sc.args[2])
	case "epoll_wait", "epoll_pwait":
		return ms(sc.args[3])
	case "select":
		return readTime(v, sc.args[4], time.Microsecond)
	case "pselect6":
		return readTime(v, sc.args[4], time.Nanosecond)
	case "ppoll":
		return readTime(v, sc.args[2], time.Nanosecond)
	case "epoll_pwait2":
		return readTime(v, sc.args[3], time.Nanosecond)
	}
	return -1
}

// readTime reads a struct timeval (unit µs) or timespec (unit ns) at addr;
// a NULL pointer means no timeout.
func readTime(v procView, addr uint64, unit time.Duration) time.Duration {
	if addr == 0 {
		return -1
	}
	buf := v.scratch(16)
	if v.readMem(addr, buf) != nil {
		return -1
	}
	sec := int64(binary.LittleEndian.Uint64(buf))
	frac := int64(binary.LittleEndian.Uint64(buf[8:]))
	if sec < 0 || frac < 0 || sec > 1<<32 {
		return -1
	}
	return time.Duration(sec)*time.Second + time.Duration(frac)*unit
}

// memFailed turns a failed read of the blocked process's memory into a
// classification: refused access means "cannot tell", so Running.
func memFailed(r *threadResult, err error) {
	if err == errDenied {
		r.class, r.why = thBusy, "cannot read its memory (permission denied); assuming running"
	}
}

// decodeSelect looks for an input fd in the readfds set of select/pselect6.
func decodeSelect(v procView, sc *sysState, r *threadResult) {
	nfds, readfds := int(int32(sc.args[0])), sc.args[1]
	if nfds <= 0 || readfds == 0 {
		return
	}
	if nfds > maxSelectFds {
		nfds = maxSelectFds
	}
	// The kernel copies fd_set in whole longs.
	n := (nfds + 63) / 64 * 8
	buf := v.scratch(n)
	if err := v.readMem(readfds, buf); err != nil {
		memFailed(r, err)
		return
	}
	for fd := 0; fd < nfds; fd++ {
		if buf[fd/8]&(1<<(fd%8)) == 0 {
			continue
		}
		if c := v.fdClass(fd); c.isInput() {
			r.class, r.fd, r.fdKind = thReading, fd, c.String()
			return
		}
	}
}

// decodePoll looks for an input fd polled for readability in poll/ppoll.
func decodePoll(v procView, sc *sysState, r *threadResult) {
	addr, nfds := sc.args[0], int(sc.args[1])
	if nfds <= 0 || addr == 0 {
		return
	}
	if nfds > maxPollFds {
		nfds = maxPollFds
	}
	const pollfdSize = 8 // struct pollfd { int32 fd; int16 events; int16 revents; }
	const chunk = 512
	for done := 0; done < nfds; {
		k := min(nfds-done, chunk)
		buf := v.scratch(k * pollfdSize)
		if err := v.readMem(addr+uint64(done*pollfdSize), buf); err != nil {
			memFailed(r, err)
			return
		}
		for i := 0; i < k; i++ {
			e := buf[i*pollfdSize:]
			fd := int(int32(binary.LittleEndian.Uint32(e)))
			events := binary.LittleEndian.Uint16(e[4:])
			if fd < 0 || events&(unix.POLLIN|pollRdNorm) == 0 {
				continue
			}
			if c := v.fdClass(fd); c.isInput() {
				r.class, r.fd, r.fdKind = thReading, fd, c.String()
				return
			}
		}
		done += k
	}
}

// decodeEpoll looks for an input fd registered for EPOLLIN in the epoll
// instance, from /proc/PID/fdinfo/EPFD lines
// "tfd: N events: HEX data: HEX pos:N ino:HEX sdev:HEX".
func decodeEpoll(v procView, sc *sysState, r *threadResult) {
	b, err := v.fdinfo(int(int32(sc.args[0])))
	if err != nil {
		if err == errDenied {
			r.class, r.why = thBusy, "cannot read its epoll set (permission denied); assuming running"
		}
		return
	}
	for len(b) > 0 {
		line := b
		if j := indexByte(b, '\n'); j >= 0 {
			line, b = b[:j], b[j+1:]
		} else {
			b = nil
		}
		if !hasPrefix(line, "tfd:") {
			continue
		}
		i := len("tfd:")
		tfd, ok1 := parseUint(nextField(line, &i))
		if string(nextField(line, &i)) != "events:" {
			continue
		}
		// fdinfo prints events in hex without a 0x prefix.
		events, ok2 := parseBase(nextField(line, &i), 16)
		if !ok1 || !ok2 || events&(unix.EPOLLIN|unix.EPOLLRDNORM) == 0 {
			continue
		}
		fd := int(tfd)
		if c := v.fdClass(fd); c.isInput() {
			r.class, r.fd, r.fdKind = thReading, fd, c.String()
			return
		}
	}
}

// growMem returns a scratch buffer of n bytes for reading process memory.
func (in *inspector) growMem(n int) []byte {
	if cap(in.mem) < n {
		in.mem = make([]byte, n)
	}
	return in.mem[:n]
}

// stateClass classifies a thread by its scheduler state alone: gone,
// stopped and busy (anything but sleeping) are final; only a sleeping
// thread needs its syscall looked at.
func stateClass(state byte) (c threadClass, final bool) {
	switch state {
	case 'Z', 'X', 'x':
		return thGone, true
	case 'T', 't':
		return thStopped, true
	case 'S':
		return 0, false
	}
	return thBusy, true
}
