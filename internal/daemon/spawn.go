package daemon

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Ready lines a starting daemon writes to the descriptor -ready-fd names.
const (
	// ReadyListening: it listens on the socket.
	ReadyListening = "ready"
	// ReadyRunning: another daemon already holds the socket.
	ReadyRunning = "running"
	// ReadyErrorPrefix starts the line of a daemon that cannot start.
	ReadyErrorPrefix = "error: "
)

// ReadyFD is the descriptor a started daemon reports readiness on (the
// first of exec.Cmd.ExtraFiles) on Unix; on Windows it is the inherited
// handle's value, whatever Windows gives.
const ReadyFD = 3

// SpawnOptions say how to start a daemon.
type SpawnOptions struct {
	Exe string
	// Args are the daemon's arguments; they must make it report on
	// readyFD (agentty daemon -ready-fd).
	Args func(readyFD uintptr) []string
	Dir  string
	// Warn says something the person should know (the daemon could not
	// leave the caller's job and ends with it); nil: nothing is said.
	Warn func(msg string)
}

// Spawn starts a daemon detached from the caller's session, process group
// and terminal (setsid; on Windows a detached process in a group of its
// own, out of the caller's job), stdin, stdout and stderr on the null
// device (it logs to its own file), and waits until it reports that it
// listens or that another daemon does, or until ctx ends. The process is
// reaped when it exits; the caller may exit before it.
func Spawn(ctx context.Context, o SpawnOptions) error {
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd, err := startDetached(o, w, func() *exec.Cmd {
		c := exec.Command(o.Exe)
		c.Dir = o.Dir
		c.Stdin, c.Stdout, c.Stderr = null, null, null
		return c
	})
	w.Close()
	if err != nil {
		return fmt.Errorf("starting the daemon: %w", err)
	}
	// Reaped whenever it ends; this goroutine ends with it or with us.
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	select {
	case line := <-lines:
		switch {
		case line == ReadyListening, line == ReadyRunning:
			return nil
		case strings.HasPrefix(line, ReadyErrorPrefix):
			return errors.New("the daemon cannot start: " + strings.TrimPrefix(line, ReadyErrorPrefix))
		}
		// The pipe closed without a word: the process ended.
		select {
		case err := <-exited:
			return fmt.Errorf("the daemon exited before it listened (%v); see its log", err)
		case <-time.After(time.Second):
			return errors.New("the daemon closed its ready pipe without listening; see its log")
		}
	case <-ctx.Done():
		_ = r.SetReadDeadline(time.Unix(1, 0))
		return fmt.Errorf("the daemon did not report ready: %w", ctx.Err())
	}
}
