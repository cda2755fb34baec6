//go:build linux && (amd64 || arm64)

package inputwait

import (
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/procfile"
)

// syscallTable is this machine's table.
var syscallTable = syscallTableFor(runtime.GOARCH)

// lookupSyscall returns the kind and name of syscall nr on this machine.
func lookupSyscall(nr int) (sysKind, string) { return lookupIn(syscallTable, nr) }

// fdEntry is one fd of the process being classified, already looked at.
type fdEntry struct {
	fd    int
	class fdClass
}

// deniedErr folds the errnos of a refused /proc access into errDenied.
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
	if running, ok := parseSyscall(b, &sc); !ok || running {
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

// growMem returns a scratch buffer of n bytes for reading process memory.
func (in *inspector) growMem(n int) []byte {
	if cap(in.mem) < n {
		in.mem = make([]byte, n)
	}
	return in.mem[:n]
}
