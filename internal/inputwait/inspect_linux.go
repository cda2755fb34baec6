//go:build linux && (amd64 || arm64)

package inputwait

import (
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// inspector holds one probe's target facts and the scratch buffers that
// make repeated probes nearly allocation-free. It is pooled, never shared
// between concurrent probes.
type inspector struct {
	ptyMode   bool
	haveInput bool   // pipe mode with a live stdin pipe
	tty       uint64 // PTY slave device
	pipeDev   uint64 // stdin pipe identity (pipe mode)
	pipeIno   uint64
	pipefsDev uint64
	pgid      int // the inspected process group
	rootSid   int
	self      int

	path    []byte
	buf     []byte
	dents   []byte
	mem     []byte
	queue   []int
	tids    []int
	scan    []int
	members []localMember
	fds     []fdEntry
	table   []pidPair
	stat    unix.Stat_t
	view    localView // the process being classified, as a procView
	iov     [1]unix.Iovec
	riov    [1]unix.RemoteIovec

	// cache holds the /proc files kept open between probes of one
	// Inspector, for the length of its probe; nil for Inspect.
	cache *fdCache

	// countErr is the first error, other than a thread having ended, that
	// kept a thread's run counters from being read in this probe.
	countErr error

	haveTable bool
}

var inspectors = sync.Pool{New: func() any {
	return &inspector{
		path:  make([]byte, 0, 64),
		buf:   make([]byte, 0, 4096),
		dents: make([]byte, 8192),
		mem:   make([]byte, 0, 1024),
	}
}}

var selfPid = os.Getpid()

// testHookAfterPTYQuery, when set by a test, runs between reading the
// terminal and walking the processes: the moment a program can change its
// modes and block.
var testHookAfterPTYQuery func()

// exactVerdict: this kernel shows what every thread is blocked in.
const exactVerdict = VerdictExact

// inspectExact is the exact verdict without an Inspector: it classifies
// what every thread of the input's group is blocked in, and decides. It
// reads only the group's own /proc files (Inspect checked the target).
func inspectExact(t Target) (Probe, error) {
	in := inspectors.Get().(*inspector)
	defer inspectors.Put(in)
	in.reset()
	return in.inspect(t)
}

func (in *inspector) reset() {
	in.ptyMode, in.haveInput, in.haveTable = false, false, false
	in.tty, in.pipeDev, in.pipeIno, in.pgid, in.rootSid = 0, 0, 0, 0, 0
	in.self = selfPid
	in.pipefsDev = pipefsDev()
	in.queue, in.tids, in.members = in.queue[:0], in.tids[:0], in.members[:0]
	in.countErr = nil
}

func (in *inspector) inspect(t Target) (Probe, error) {
	switch {
	case t.PTY != nil:
		v, err := queryPTY(t.PTY, t.TTY)
		if err != nil {
			return Probe{State: Running, Detail: "cannot query the terminal"}, err
		}
		in.ptyMode, in.tty, in.pgid = true, v.tty, v.pgid
		if testHookAfterPTYQuery != nil {
			testHookAfterPTYQuery()
		}
	case t.Stdin != nil:
		dev, ino, err := pipeIdentity(t.Stdin)
		if err != nil {
			return Probe{State: Running, Detail: "cannot stat the stdin pipe"}, err
		}
		in.haveInput, in.pipeDev, in.pipeIno = true, dev, ino
	}

	if !in.walk(t.Root) {
		return Probe{State: Running, Detail: "root process " + strconv.Itoa(t.Root) + " has exited"}, nil
	}

	// Decoding syscalls is pointless when nothing can be the input.
	decode := in.ptyMode || in.haveInput
	var (
		sum     uint64
		readers readerSum
		g       group
	)
	for mi := range in.members {
		m := &in.members[mi]
		// After a busy member the answer is Running; the rest only feed
		// the fingerprint.
		pv, note := in.judgeMember(m, decode && g.busyM == nil, &sum, &readers)
		g.add(&m.member, pv, note)
	}
	if in.countErr != nil {
		return Probe{State: Running, Detail: "cannot read the scheduling counters"}, in.countErr
	}
	probe := g.probe(decode, in.pgid, fingerprint(sum, in.pgid, len(in.members)))
	if probe.State == AwaitingInput {
		probe.Readers = readers.of(in.pgid, len(in.members))
	}
	if probe.State == AwaitingInput {
		if in.haveInput {
			n, err := pendingInput(t.Stdin)
			if err != nil {
				return Probe{State: Running, Fingerprint: probe.Fingerprint, Detail: "cannot check pending input"}, err
			}
			if n > 0 {
				// The reader has been woken and is about to consume it.
				probe.State = Running
				probe.Detail = strconv.Itoa(n) + " bytes of input not read yet; " + probe.Detail
			}
		}
		var tio unix.Termios
		if in.ptyMode {
			// Modes read before the walk could predate the block: a
			// program sets them (read -s turns echo off) and then reads.
			// Read after the block was seen, they are the ones it reads
			// with.
			var err error
			if tio, err = PTYTermios(t.PTY); err != nil {
				return Probe{State: Running, Fingerprint: probe.Fingerprint, Detail: "cannot query the terminal"}, err
			}
		}
		if in.ptyMode && tio.Lflag&unix.ECHO == 0 && tio.Lflag&unix.ICANON != 0 {
			// A line read with echo off. Line editors (readline) turn off
			// ICANON as well and are not passwords.
			probe.State = AwaitingPassword
			probe.Detail += "; echo off"
		}
	}
	return probe, nil
}
