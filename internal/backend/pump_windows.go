package backend

import (
	"os"
	"sync"

	"github.com/agentty/agentty/internal/outlog"
)

// pumpBufSize is the read size. Unlike Linux's, a Windows pump holds its
// buffer while idle: an overlapped read needs it for as long as it is
// pending.
const pumpBufSize = 32 << 10

// pump drains one of agentty's overlapped pipe ends into a sink as fast as
// the far end writes, so a slow or absent reader never blocks the program.
type pump struct {
	f      *os.File
	stream outlog.Stream
	sink   Sink
	mu     sync.Mutex // held across each append
	moved  *sync.Cond // on mu: total grew, or run ended
	total  int64      // bytes passed to sink; guarded by mu
	done   chan struct{}
}

func newPump(f *os.File, s outlog.Stream, sink Sink) *pump {
	p := &pump{f: f, stream: s, sink: sink, done: make(chan struct{})}
	p.moved = sync.NewCond(&p.mu)
	return p
}

// run is owned by the Process that made the pump; it returns at end of
// file (the far end closed), on a read error, or when the Process closes f.
func (p *pump) run() {
	defer func() {
		p.mu.Lock()
		close(p.done)
		p.moved.Broadcast()
		p.mu.Unlock()
	}()
	buf := make([]byte, pumpBufSize)
	for {
		n, err := p.f.Read(buf)
		if n > 0 {
			p.mu.Lock()
			p.sink(p.stream, buf[:n])
			p.total += int64(n)
			p.moved.Broadcast()
			p.mu.Unlock()
		}
		if err != nil || n == 0 {
			return
		}
	}
}

func (p *pump) ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// quiet reports whether the pipe holds nothing unread. A read that has
// completed but whose bytes are not yet appended is not seen: Windows
// sessions settle rather than rely on it (InputWaits).
func (p *pump) quiet() bool {
	if p.ended() {
		return true
	}
	n, err := pipeAvail(p.f)
	return err != nil || n == 0
}

// collect returns once every byte the pipe held at the call is in the
// sink, or the pump has ended. Called after the root exited, that is all
// its output that reached the pipe; descendants writing on do not hold it
// up, since only the bytes held at the call count.
func (p *pump) collect() {
	// Peeked under mu, so bytes the pump appends meanwhile are not
	// counted twice (a goal never reached would hang here).
	p.mu.Lock()
	defer p.mu.Unlock()
	held, err := pipeAvail(p.f)
	if err != nil {
		return
	}
	goal := p.total + int64(held)
	for p.total < goal && !p.ended() {
		p.moved.Wait()
	}
}
