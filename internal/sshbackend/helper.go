package sshbackend

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"
)

//go:embed helper.sh
var helperScript string

// helperTimeout bounds one request; a helper that does not answer in time
// is closed and started again on the next request.
const helperTimeout = 10 * time.Second

// errNoHelper: the remote is not Linux (or has no POSIX sh), so there is no
// kernel probe; waits fall back to until/settle_ms.
var errNoHelper = errors.New("no remote helper")

// helper is the remote control loop of one connection (helper.sh).
//
// Ownership: the reader goroutine is started by startHelper and ends when
// the channel's stdout reaches EOF, which close (or the connection dropping)
// causes; close waits for it.
type helper struct {
	sess  *ssh.Session
	stdin io.WriteCloser
	lines chan string   // answers, in order; closed by the reader at EOF
	done  chan struct{} // closed when the reader returned
	OS    string        // uname -s of the remote
	Arch  string        // uname -m of the remote

	mu  sync.Mutex   // one request at a time
	rtt atomic.Int64 // duration of the last answered request, ns

	closeOnce sync.Once
}

func startHelper(newSession func() (*ssh.Session, error)) (*helper, error) {
	sess, err := newSession()
	if err != nil {
		return nil, err
	}
	stdin, err := sess.StdinPipe()
	if err != nil {
		sess.Close()
		return nil, err
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		sess.Close()
		return nil, err
	}
	if err := sess.Start("exec /bin/sh -c " + shellQuote(helperScript)); err != nil {
		sess.Close()
		return nil, err
	}
	h := &helper{sess: sess, stdin: stdin, lines: make(chan string, 1), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		defer close(h.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 4096), 1<<20)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
	}()
	hello, err := h.next()
	if err != nil {
		h.close()
		return nil, fmt.Errorf("remote helper did not start (is /bin/sh there?): %w", err)
	}
	f := strings.Fields(hello)
	if len(f) < 3 || f[0] != "agentty-helper" {
		h.close()
		return nil, fmt.Errorf("remote helper: unexpected greeting %q", hello)
	}
	h.OS, h.Arch = f[1], f[2]
	if h.OS != "Linux" {
		h.close()
		return h, fmt.Errorf("%w: the remote runs %s, not Linux", errNoHelper, h.OS)
	}
	return h, nil
}

// next waits for one answer line.
func (h *helper) next() (string, error) {
	t := time.NewTimer(helperTimeout)
	defer t.Stop()
	select {
	case l, ok := <-h.lines:
		if !ok {
			return "", fmt.Errorf("remote helper ended: %w", io.ErrUnexpectedEOF)
		}
		return l, nil
	case <-t.C:
		return "", fmt.Errorf("remote helper did not answer within %v", helperTimeout)
	}
}

// request sends one line and returns the answer. A failed request closes
// the helper so the connection starts a fresh one.
func (h *helper) request(format string, args ...any) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	start := time.Now()
	if _, err := fmt.Fprintf(h.stdin, format+"\n", args...); err != nil {
		h.close()
		return "", fmt.Errorf("remote helper: %w", err)
	}
	l, err := h.next()
	if err != nil {
		h.close()
		return l, err
	}
	h.rtt.Store(int64(time.Since(start)))
	return l, nil
}

// alive reports whether the reader still runs.
func (h *helper) alive() bool {
	select {
	case <-h.done:
		return false
	default:
		return true
	}
}

func (h *helper) close() {
	h.closeOnce.Do(func() {
		h.stdin.Close()
		h.sess.Close()
		// The reader may be blocked handing over a line nobody takes.
		go func() {
			for range h.lines {
			}
		}()
		<-h.done
	})
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
