//go:build linux && (amd64 || arm64)

package inputwait

import (
	"testing"
)

// TestReaders_RunAndFlushing: Probe.Readers names the threads that read the
// input and moves once one of them ran; Flushing tells read, select and
// poll (which take in input the terminal is still delivering) from epoll.
func TestReaders_RunAndFlushing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		argv     []string
		prompt   string // printed before each read
		reply    string // the output after typing "1": echo, answer, prompt
		detail   string
		flushing bool
	}{
		{"cat in read", []string{"sh", "-c", "while :; do printf 'p> '; read x || exit; done"}, "p> ", "p> 1\r\np> ", "in read on fd 0 (tty)", true},
		{"python in pselect6", []string{"python3", "-q"}, ">>> ", ">>> 1\r\n1\r\n>>> ", "in pselect6 on fd 0 (tty)", true},
		{"epoll", []string{"python3", "-q", "-c", epollReader}, "e> ", "e> 1\r\ne> ", "in epoll_wait", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := startPTY(t, tc.argv...)
			c.out.waitFor(t, tc.prompt)
			p := waitDetail(t, c.target, AwaitingInput, tc.detail)
			if p.Readers.IDs == 0 || p.Readers.Flushing != tc.flushing {
				t.Fatalf("readers %+v of %q, want ids and flushing=%v", p.Readers, p.Detail, tc.flushing)
			}
			if q, err := Inspect(c.target); err != nil || q.Readers != p.Readers {
				t.Fatalf("readers moved with the program idle: %+v then %+v (%v)", p.Readers, q.Readers, err)
			}
			if _, err := c.target.PTY.Write([]byte("1\n")); err != nil {
				t.Fatal(err)
			}
			c.out.waitFor(t, tc.reply)
			q := waitDetail(t, c.target, AwaitingInput, tc.detail)
			if q.Readers.IDs != p.Readers.IDs || q.Readers.Runs == p.Readers.Runs || q.Readers.Flushing != tc.flushing {
				t.Fatalf("readers after a line %+v, before %+v: want the same ids, moved runs", q.Readers, p.Readers)
			}
		})
	}
	t.Run("running program has none", func(t *testing.T) {
		t.Parallel()
		c := startPTY(t, "sh", "-c", "while :; do :; done")
		p := waitDetail(t, c.target, Running, "is running")
		if p.Readers != (Readers{}) {
			t.Fatalf("readers %+v of a busy program", p.Readers)
		}
	})
}

// epollReader prints a prompt and waits for the terminal in epoll_wait,
// reading one line per wake-up.
const epollReader = `
import os, select, sys
ep = select.epoll()
ep.register(0, select.EPOLLIN)
while True:
    os.write(1, b"e> ")
    ep.poll()
    if not os.read(0, 4096):
        break
`
