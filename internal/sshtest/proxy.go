package sshtest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP to a server and can fail like a network: Cut drops
// every connection mid-stream, Stall stops forwarding without closing.
type Proxy struct {
	Addr string
	ln   net.Listener
	to   string

	wg sync.WaitGroup // accept loop and copiers

	mu      sync.Mutex
	conns   []net.Conn    // guarded by mu
	stalled chan struct{} // guarded by mu; non-nil while stalled, closed to resume
	closed  bool          // guarded by mu
}

// NewProxy listens on 127.0.0.1 and forwards to addr until the test ends.
func NewProxy(t testing.TB, addr string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), ln: ln, to: addr}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.to)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			up.Close()
			return
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.copy(up, c)
		go p.copy(c, up)
	}
}

func (p *Proxy) copy(dst, src net.Conn) {
	defer p.wg.Done()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			st := p.stalled
			p.mu.Unlock()
			if st != nil {
				<-st
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				src.Close()
			}
			return
		}
	}
}

// Cut closes every forwarded connection, as a network failure would.
func (p *Proxy) Cut() {
	p.mu.Lock()
	cs := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
}

// Stall stops forwarding bytes; the connections stay open.
func (p *Proxy) Stall() {
	p.mu.Lock()
	if p.stalled == nil {
		p.stalled = make(chan struct{})
	}
	p.mu.Unlock()
}

// Close stops the proxy and every copier.
func (p *Proxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	if p.stalled != nil {
		close(p.stalled)
		p.stalled = nil
	}
	p.mu.Unlock()
	p.ln.Close()
	p.Cut()
	p.wg.Wait()
}
