package inputwait

import (
	"fmt"
	"strconv"
	"strings"
)

// Remote judges the raw /proc facts a remote host's probe collected about
// a session's input group, with the same rules as Inspect. The answer is
// one line of space-separated tokens:
//
//	r SCHEDSUM MEMBERS PGID DETAIL   decided without decoding (root gone, stdin closed)
//	g SCHEDSUM MEMBERS PGID ARCH PTY LFLAG RECORD...
//
// ARCH is the remote's uname -m, PTY is 1 on a terminal, LFLAG the
// terminal's local modes in hex or "-" when not asked.
// Records describe the members, each after its process record:
//
//	p PID LEN COMM    a member (COMM is the LEN bytes after one space)
//	i FD KIND         FD is the session's input (tty, /dev/tty or pipe)
//	a FD              FD is some other pipe
//	t TID STATE       a thread not asleep (R, D, T, Z ...)
//	s TID NR A1..A6   a sleeping thread's syscall and arguments (hex)
//	s TID -1          a sleeping thread outside any syscall
//	d TID             a thread whose syscall cannot be read
//	m ADDR N HEX...   N bytes of the process's memory at ADDR (fewer: unreadable)
//	e EPFD TFD EVENTS epoll instance EPFD watches TFD for EVENTS (hex)
//	e EPFD -          epoll instance EPFD cannot be read
func Remote(answer string) (Probe, error) {
	bad := func(why string) (Probe, error) {
		return Probe{State: Running, Detail: "remote probe: bad answer"},
			fmt.Errorf("remote probe: bad answer (%s): %.200q", why, answer)
	}
	kind, rest, _ := strings.Cut(answer, " ")
	var head [3]uint64
	for i := range head {
		var tok string
		tok, rest, _ = strings.Cut(rest, " ")
		v, err := strconv.ParseUint(tok, 10, 64)
		if err != nil {
			return bad("counters")
		}
		head[i] = v
	}
	sum, members, pgid := head[0], int(head[1]), int(head[2])
	fp := fingerprint(sum, pgid, members)
	if kind == "r" {
		return Probe{State: Running, Fingerprint: fp, Detail: rest}, nil
	}
	a := remoteAnswer{rest: rest}
	arch, pty, lflag := a.next(), a.next(), a.next()
	table := syscallTableFor(arch)
	if kind != "g" || table == nil {
		return bad("kind or architecture " + arch)
	}
	procs, err := a.records()
	if err != nil {
		return bad(err.Error())
	}
	var g group
	for i := range procs {
		if g.busyM != nil {
			break // the answer is Running, as Inspect decides
		}
		rp := &procs[i]
		t := tally{n: len(rp.threads)}
		for _, th := range rp.threads {
			if t.seen[thBusy] {
				break
			}
			t.add(rp.classify(table, th, !t.seen[thReading]))
		}
		pv, note := t.verdict()
		g.add(&rp.m, pv, note)
	}
	probe := g.probe(true, pgid, fp)
	if probe.State == AwaitingInput && pty == "1" {
		// ECHO is 0x8, ICANON 0x2 in c_lflag: a line read with echo off.
		if lf, err := strconv.ParseUint(lflag, 16, 32); err == nil && lf&0x8 == 0 && lf&0x2 != 0 {
			probe.State = AwaitingPassword
			probe.Detail += "; echo off"
		}
	}
	return probe, nil
}

// remoteAnswer walks the tokens of an answer.
type remoteAnswer struct{ rest string }

func (a *remoteAnswer) next() string {
	tok, rest, _ := strings.Cut(a.rest, " ")
	a.rest = rest
	return tok
}

func (a *remoteAnswer) int(base int) (int64, error) {
	tok := a.next()
	v, err := strconv.ParseInt(tok, base, 64)
	if err != nil {
		return 0, fmt.Errorf("number %q", tok)
	}
	return v, nil
}

// remoteThread is one thread of a remote member as reported.
type remoteThread struct {
	tid    int
	state  byte
	denied bool // its syscall could not be read
	sc     sysState
}

// remoteProc is one member with the facts its probe collected; it is the
// procView its threads are decoded against.
type remoteProc struct {
	m       member
	threads []remoteThread
	fds     map[int]fdClass
	mem     []remoteBlob
	epoll   map[int]string // EPFD -> fdinfo lines; "" when unreadable
	buf     []byte
}

// remoteBlob is memory the probe read: n bytes at addr were asked for;
// ok when all of them came.
type remoteBlob struct {
	addr, n uint64
	data    []byte
	ok      bool
}

func (a *remoteAnswer) records() ([]remoteProc, error) {
	var procs []remoteProc
	var cur *remoteProc
	for a.rest != "" {
		rec := a.next()
		if rec == "" {
			continue
		}
		if rec != "p" && cur == nil {
			return nil, fmt.Errorf("record %q before a process", rec)
		}
		switch rec {
		case "p":
			pid, err := a.int(10)
			if err != nil {
				return nil, err
			}
			n, err := a.int(10)
			if err != nil || n < 0 || int(n) > len(a.rest) {
				return nil, fmt.Errorf("process %d name", pid)
			}
			procs = append(procs, remoteProc{m: member{pid: int(pid)}, fds: map[int]fdClass{}, epoll: map[int]string{}})
			cur = &procs[len(procs)-1]
			cur.m.comm.n = copy(cur.m.comm.b[:], a.rest[:n])
			a.rest = strings.TrimPrefix(a.rest[n:], " ")
		case "i", "a":
			fd, err := a.int(10)
			if err != nil {
				return nil, err
			}
			c := fdAnonPipe
			if rec == "i" {
				switch a.next() {
				case "tty":
					c = fdInputTTY
				case "/dev/tty":
					c = fdInputDevTTY
				case "pipe":
					c = fdInputPipe
				default:
					return nil, fmt.Errorf("input fd %d kind", fd)
				}
			}
			cur.fds[int(fd)] = c
		case "t", "s", "d":
			tid, err := a.int(10)
			if err != nil {
				return nil, err
			}
			th := remoteThread{tid: int(tid), state: 'S'}
			switch rec {
			case "t":
				st := a.next()
				if len(st) != 1 {
					return nil, fmt.Errorf("thread %d state %q", tid, st)
				}
				th.state = st[0]
			case "d":
				th.denied = true
			case "s":
				nr, err := a.int(10)
				if err != nil {
					return nil, err
				}
				th.sc.nr = int(nr)
				if nr >= 0 {
					for k := range th.sc.args {
						tok := a.next()
						v, ok := parseUint([]byte(tok))
						if !ok {
							return nil, fmt.Errorf("thread %d argument %q", tid, tok)
						}
						th.sc.args[k] = v
					}
				}
			}
			cur.threads = append(cur.threads, th)
		case "m":
			addr, ok := parseUint([]byte(a.next()))
			n, err := a.int(10)
			if !ok || err != nil || n < 0 {
				return nil, fmt.Errorf("memory record")
			}
			b := remoteBlob{addr: addr, n: uint64(n), data: make([]byte, 0, n)}
			for int64(len(b.data)) < n {
				tok, rest, _ := strings.Cut(a.rest, " ")
				v, err := strconv.ParseUint(tok, 16, 8)
				if len(tok) != 2 || err != nil {
					break // the rest was unreadable
				}
				b.data, a.rest = append(b.data, byte(v)), rest
			}
			b.ok = int64(len(b.data)) == n
			cur.mem = append(cur.mem, b)
		case "e":
			epfd, err := a.int(10)
			if err != nil {
				return nil, err
			}
			tfd := a.next()
			if tfd == "-" {
				cur.epoll[int(epfd)] = ""
				continue
			}
			cur.epoll[int(epfd)] += "tfd: " + tfd + " events: " + a.next() + "\n"
		default:
			return nil, fmt.Errorf("record %q", rec)
		}
	}
	return procs, nil
}

// classify decides what one reported thread does, as classifyThread does
// for a local one.
func (p *remoteProc) classify(table []sysInfo, th remoteThread, decode bool) threadResult {
	r := threadResult{tid: th.tid, state: th.state, nr: -1, fd: -1, timeout: -1}
	if c, final := stateClass(th.state); final {
		r.class = c
		return r
	}
	switch {
	case !decode:
		r.class = thBlocked
		return r
	case th.denied:
		r.class, r.why = thBusy, "cannot read its syscall (permission denied); assuming running"
		return r
	case th.sc.nr < 0:
		r.class, r.why = thBusy, "is blocked outside a syscall"
		return r
	}
	r.nr = th.sc.nr
	kind, name := lookupIn(table, th.sc.nr)
	r.name = name
	r.class = thBlocked
	sc := th.sc
	classifyWait(p, &sc, kind, &r)
	return r
}

func (p *remoteProc) fdClass(fd int) fdClass { return p.fds[fd] }

func (p *remoteProc) readMem(addr uint64, b []byte) error {
	for _, m := range p.mem {
		if addr < m.addr || addr-m.addr+uint64(len(b)) > m.n {
			continue
		}
		if !m.ok {
			return errDenied
		}
		copy(b, m.data[addr-m.addr:])
		return nil
	}
	return errNotCollected
}

func (p *remoteProc) fdinfo(fd int) ([]byte, error) {
	s, ok := p.epoll[fd]
	switch {
	case !ok:
		return nil, errNotCollected
	case s == "":
		return nil, errDenied
	}
	return []byte(s), nil
}

func (p *remoteProc) scratch(n int) []byte {
	if cap(p.buf) < n {
		p.buf = make([]byte, n)
	}
	return p.buf[:n]
}

// errNotCollected: the remote probe did not send what decoding needs.
var errNotCollected = fmt.Errorf("not in the remote probe's answer")
