package sshbackend_test

import (
	"errors"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/sshbackend"
	"github.com/agentty/agentty/internal/sshtest"
)

// Wait returns only once the pumps appended everything the channel
// carried, however far behind they are when the server closes the channel:
// the session reports "exited" on Wait.
func TestProcess_WaitAfterAllOutput(t *testing.T) {
	srv := sshtest.Start(t, "agentty-sshb")
	pool := sshbackend.NewPool(testOptions(t, srv))
	defer pool.Close()
	const n = 500000
	for _, pty := range []bool{false, true} {
		var mu sync.Mutex
		got := 0 // guarded by mu
		release := make(chan struct{})
		var once sync.Once
		// The sink holds its first chunk until released, like a pump that
		// fell behind; the rest waits in the channel's buffer.
		sink := func(_ outlog.Stream, p []byte) {
			once.Do(func() { <-release })
			mu.Lock()
			got += len(p)
			mu.Unlock()
		}
		p, err := pool.Start(backend.RemoteSpec{Host: srv.Target(srv.Addr), SessionID: "w", Marker: "waittest/1",
			Argv: []string{"sh", "-c", "head -c 500000 /dev/zero | tr '\\0' x"}, PTY: pty, Rows: 24, Cols: 80}, sink)
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			ex  backend.Exit
			err error
			got int
		}
		waited := make(chan result, 1)
		go func() {
			ex, err := p.Wait()
			mu.Lock()
			defer mu.Unlock()
			waited <- result{ex, err, got}
		}()
		// The server closed the channel (everything it carried is in
		// the client's buffer) once nothing can be sent on it: input
		// (pipe), or a window change, which a terminal does not echo.
		closed := func() (bool, error) {
			if pty {
				err := p.Resize(24, 80)
				return err != nil, err
			}
			_, err := p.Write([]byte{'\n'}, time.Now().Add(time.Second))
			return errors.Is(err, syscall.EPIPE), err
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			done, err := closed()
			if done {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("pty=%v: the channel never closed (%v)", pty, err)
			}
			time.Sleep(time.Millisecond) // the close has no event here but Wait, which is under test
		}
		// Wait returning now would be at once; the bound only ends the
		// look for it.
		select {
		case r := <-waited:
			t.Errorf("pty=%v: Wait returned (%+v, %v) with %d of %d bytes appended", pty, r.ex, r.err, r.got, n)
			close(release)
			p.Close()
			continue
		case <-time.After(100 * time.Millisecond):
		}
		close(release)
		select {
		case r := <-waited:
			if r.err != nil || r.ex != (backend.Exit{}) || r.got != n {
				t.Errorf("pty=%v: Wait = %+v, %v with %d of %d bytes appended", pty, r.ex, r.err, r.got, n)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("pty=%v: Wait did not return once the sink caught up", pty)
		}
		p.Close()
	}
}
