package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/bench"
)

// debugSocket answers runtime counts of this process on a unix socket,
// for "agentty bench -scale": a goroutine leak is invisible from outside
// the process. One request per connection: a line "stats" gets one JSON
// line (bench.ServerStats: goroutines, heap, GOMAXPROCS), "collect" the same after a collection that
// returns every free page (debug.FreeOSMemory), "stacks" every
// goroutine's stack.
type debugSocket struct {
	ln   net.Listener
	log  *slog.Logger
	wg   sync.WaitGroup // the accept loop and its connections
	once sync.Once
}

// listenDebug starts answering on path ("": nothing, nil).
func listenDebug(path string, log *slog.Logger) (*debugSocket, error) {
	if path == "" {
		return nil, nil
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		_ = os.Remove(path) // a socket left by a killed run; never another file
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	d := &debugSocket{ln: ln, log: log}
	d.wg.Add(1)
	go d.accept()
	return d, nil
}

func (d *debugSocket) accept() {
	defer d.wg.Done()
	for {
		c, err := d.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				d.log.Warn("debug socket", "err", err)
			}
			return
		}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			d.answer(c)
		}()
	}
}

func (d *debugSocket) answer(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return
	}
	switch line {
	case "collect\n":
		// What the process holds once its garbage is collected and every
		// free page returned: a measurement's baseline that does not
		// depend on when the runtime last collected.
		debug.FreeOSMemory()
		fallthrough
	case "stats\n":
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		// Less the accept loop and this answer: the socket's own.
		_ = json.NewEncoder(c).Encode(bench.ServerStats{Goroutines: runtime.NumGoroutine() - 2, HeapInuse: m.HeapInuse,
			HeapIdle: m.HeapIdle, HeapReleased: m.HeapReleased, StackInuse: m.StackInuse, Sys: m.Sys, GOMAXPROCS: runtime.GOMAXPROCS(0)})
	case "stacks\n":
		buf := make([]byte, 1<<20)
		for {
			n := runtime.Stack(buf, true)
			if n < len(buf) {
				_, _ = c.Write(buf[:n])
				return
			}
			buf = make([]byte, 2*len(buf))
		}
	}
}

// Close stops answering and waits for the answers under way; safe on nil
// and more than once.
func (d *debugSocket) Close() {
	if d == nil {
		return
	}
	d.once.Do(func() {
		_ = d.ln.Close()
		d.wg.Wait()
	})
}
