//go:build linux || darwin

package backend

import (
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/procs"
)

// pumpBufSize is the read size; idle pumps hold no buffer (see run).
const pumpBufSize = 64 << 10

// bulkRead is a read large enough that output is arriving faster than the
// pump takes it one piece at a time, as in a flood: the work of storing
// and rendering it wants every CPU (procs.Busy). An interactive program's
// replies come in smaller pieces.
const bulkRead = 2 << 10

// ttySlack bounds what a terminal holds beyond FIONREAD's count (the line
// discipline's buffer): the bytes still in its flip buffers, which the
// kernel caps at a few tens of KiB.
const ttySlack = 1 << 20

var bufPool = sync.Pool{New: func() any { b := make([]byte, pumpBufSize); return &b }}

// pump drains one output descriptor into a sink as fast as the program
// writes, so a slow or absent reader never blocks the child.
//
// It reads through RawConn.Read: the callback runs only when the descriptor
// is readable, so an idle pump parks in the netpoller holding no buffer.
// mu is held across each read and its append, which lets quiet() tell "the
// kernel holds nothing and nothing is between read and append".
type pump struct {
	f      *os.File
	rc     syscall.RawConn
	stream outlog.Stream
	sink   Sink
	slack  int64         // bytes held beyond FIONREAD's count (see collect); 0 for a pipe
	grow   bool          // a pipe that may still grow when it floods (growPipe); set before run, then run's
	mu     sync.Mutex    // held across one read+append
	total  int64         // bytes passed to sink; guarded by mu
	done   chan struct{} // closed when run returns
}

func newPump(f *os.File, s outlog.Stream, sink Sink, slack int64) (*pump, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &pump{f: f, rc: rc, stream: s, sink: sink, slack: slack, done: make(chan struct{})}, nil
}

// run is owned by the Process that created the pump; it returns at end of
// file, on a read error (EIO when a PTY's last slave closes) or when the
// Process closes f.
func (p *pump) run() {
	defer close(p.done)
	grew := false // owned by run
	defer func() {
		if grew {
			shrinkDone()
		}
	}()
	for {
		var n int
		var rerr error
		err := p.rc.Read(func(fd uintptr) bool {
			p.mu.Lock()
			defer p.mu.Unlock()
			bp := bufPool.Get().(*[]byte)
			defer bufPool.Put(bp)
			n, rerr = unix.Read(int(fd), *bp)
			if rerr == unix.EAGAIN {
				return false
			}
			if n > 0 {
				if n >= bulkRead {
					procs.Busy()
				}
				if n == len(*bp) && p.grow {
					// The read filled the buffer: the pipe was full.
					grew, p.grow = growPipe(fd)
				}
				p.sink(p.stream, (*bp)[:n])
				p.total += int64(n)
			}
			return true
		})
		if err != nil || rerr != nil || n == 0 {
			return
		}
	}
}

// quiet reports whether everything the program wrote before this call is
// in the log. It reads the descriptor once, non-blocking, under the pump's
// lock: for a PTY master that read first waits for the kernel's pending
// flip-buffer work (n_tty_read flushes it before answering EAGAIN), so bytes
// still travelling from the slave are caught too. Bytes it finds go to the
// sink like any others, and it reports false.
func (p *pump) quiet() bool {
	select {
	case <-p.done:
		return true
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	err := p.rc.Control(func(fd uintptr) {
		bp := bufPool.Get().(*[]byte)
		defer bufPool.Put(bp)
		n, _ = unix.Read(int(fd), *bp)
		if n > 0 {
			p.sink(p.stream, (*bp)[:n])
			p.total += int64(n)
		}
	})
	return err != nil || n <= 0
}

// collect returns once everything the descriptor held when it was called
// is in the sink. Called after the program was reaped, that is every byte
// it wrote: a write to a pipe or terminal is in the kernel's buffer when
// write returns. It reads alongside run rather than waiting for end of
// file, which descendants still holding the descriptor may put off for
// ever; and it stops after the bytes held at the call (FIONREAD, plus slack
// for what a terminal keeps outside that count) even when descendants keep
// writing, so it cannot be held up either.
func (p *pump) collect() {
	p.mu.Lock()
	held := int64(ttySlack) // when the kernel cannot say
	cerr := p.rc.Control(func(fd uintptr) {
		if n, err := unix.IoctlGetInt(int(fd), fionread); err == nil {
			held = int64(n)
		}
	})
	goal := p.total + held + p.slack
	p.mu.Unlock()
	if cerr != nil {
		return // closed: nothing more can be read
	}
	for !p.quiet() {
		p.mu.Lock()
		reached := p.total >= goal
		p.mu.Unlock()
		if reached {
			return
		}
	}
}
