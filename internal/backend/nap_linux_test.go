package backend

import (
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
)

// TestNap_EndsAtOutput: a nap sleeps its whole pause while no output is
// pending and ends when output is ready to read. The sink holds the pump
// inside its first delivery, so the next output stays in the kernel, where
// the nap must see it.
func TestNap_EndsAtOutput(t *testing.T) {
	for _, kind := range []string{"pty", "pipe"} {
		t.Run(kind, func(t *testing.T) {
			release := make(chan struct{})
			first := make(chan struct{}, 1)
			sink := func(outlog.Stream, []byte) {
				select {
				case first <- struct{}{}:
				default:
				}
				<-release
			}
			sp := spec(`echo one; read x; echo two`)
			var p Process
			var err error
			if kind == "pty" {
				p, err = StartPTY(sp, direct, sink)
			} else {
				p, err = StartPipe(sp, direct, sink)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			defer close(release)
			n, ok := p.(interface{ Nap(time.Duration) bool })
			if !ok {
				t.Fatalf("%T has no Nap", p)
			}
			<-first // the pump holds "one"
			if start := time.Now(); n.Nap(300*time.Microsecond) || time.Since(start) < 300*time.Microsecond {
				t.Fatal("the nap ended early with no output pending")
			}
			if _, err := p.Write([]byte("go\n"), time.Now().Add(10*time.Second)); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for !n.Nap(900 * time.Microsecond) {
				if time.Now().After(deadline) {
					t.Fatal("the nap never ended at the output after the input")
				}
			}
		})
	}
}
