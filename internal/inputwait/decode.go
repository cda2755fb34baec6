package inputwait

import (
	"encoding/binary"
	"errors"
	"time"
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
	thSleep                        // sleeping for a time or until a signal
	thBlocked                      // blocked in something else (sockets, files)
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

// errDenied marks /proc access refused by ptrace access checks.
var errDenied = errors.New("permission denied")

// Limits on how much of a blocked syscall's arguments are decoded; far
// beyond what an interactive program passes.
const (
	maxSelectFds = 1 << 16
	maxPollFds   = 1 << 16
	maxFdinfo    = 1 << 20
)

// Linux's poll and epoll event bits for "readable", spelled here rather
// than taken from this machine's headers: they decode a Linux process's
// arguments, local or on a remote host, whatever this machine runs.
const (
	pollIn      = 0x1  // POLLIN
	pollRdNorm  = 0x40 // POLLRDNORM
	epollIn     = 0x1  // EPOLLIN
	epollRdNorm = 0x40 // EPOLLRDNORM
)

// classifyWait decides what a thread blocked in syscall sc (of the given
// kind) waits for, from what v tells about its process. The local inspector
// and remote probe answers (Remote) share it, so both decide alike.
func classifyWait(v procView, sc *sysState, kind sysKind, r *threadResult) {
	switch kind {
	case sysWait:
		r.class = thWaitChild
	case sysFutex:
		r.class = thFutex
	case sysSleep:
		r.class = thSleep
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
			if fd < 0 || events&(pollIn|pollRdNorm) == 0 {
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
		if !ok1 || !ok2 || events&(epollIn|epollRdNorm) == 0 {
			continue
		}
		fd := int(tfd)
		if c := v.fdClass(fd); c.isInput() {
			r.class, r.fd, r.fdKind = thReading, fd, c.String()
			return
		}
	}
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
