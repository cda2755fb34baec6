package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentty/agentty/internal/daemon"
	core "github.com/agentty/agentty/internal/server"
)

// daemonCmd runs the per-user daemon that "agentty serve" relays MCP
// clients to, so sessions outlive the clients.
func daemonCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	fs.SetOutput(stderr)
	e := registerEngine(fs)
	var socketFlag string
	var idle time.Duration
	registerSocket(fs, &socketFlag, &idle)
	logFile := fs.String("log-file", "", "where the daemon logs (default daemon.log in the state directory; - for stderr)")
	readyFD := fs.Int("ready-fd", 0, "report on this descriptor once listening (agentty serve sets it)")
	status := fs.Bool("status", false, "print the running daemon's status as JSON and exit")
	webAddr := fs.String("web", "", "serve the web view on this address from the start (loopback unless $"+tokenEnv+" is set); without it the daemon opens it on loopback when agentty web asks")
	stopIt := fs.Bool("stop", false, "ask the running daemon to exit; it does only when no session runs and no client is connected")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: agentty daemon [flags]\n\nThe per-user daemon agentty serve relays MCP clients to, so sessions outlive\n"+
			"the client. serve starts it when none runs; it takes serve's configuration flags.\n\n")
		fs.PrintDefaults()
	}
	if code, ok := e.load("daemon", args, stderr); !ok {
		return code
	}
	ready := readyReporter(*readyFD)
	fail := func(code int, err error) int {
		ready(daemon.ReadyErrorPrefix + err.Error())
		fmt.Fprintf(stderr, "agentty daemon: %v\n", err)
		return code
	}
	socket, err := socketPath(socketFlag)
	if err != nil {
		return fail(2, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	switch {
	case *status:
		st, err := daemon.GetStatus(ctx, socket)
		if err != nil {
			return fail(1, err)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(st)
		return 0
	case *stopIt:
		if err := daemon.Stop(ctx, socket); err != nil {
			return fail(1, err)
		}
		return 0
	}
	logOut, err := openDaemonLog(*logFile, stderr)
	if err != nil {
		return fail(2, err)
	}
	defer logOut.Close()
	logger, err := e.logger(logOut)
	if err != nil {
		return fail(2, err)
	}
	scfg, err := e.coreConfig(logger)
	if err != nil {
		return fail(2, err)
	}
	// Another daemon's claim: once it answers, the serve that started us
	// uses it; once it lets go (it was exiting), the socket is ours.
	ln, err := daemon.Claim(ctx, socket, logger, connectWithin/3)
	if errors.Is(err, daemon.ErrRunning) {
		ready(daemon.ReadyRunning)
		fmt.Fprintf(stderr, "agentty daemon: another daemon already serves %s\n", socket)
		return 1
	}
	if err != nil {
		return fail(1, err)
	}
	defer ln.Close()
	srv, err := core.New(scfg)
	if err != nil {
		return fail(1, err)
	}
	var webOpts *core.HTTPOptions
	if *webAddr != "" {
		webOpts = &core.HTTPOptions{Addr: *webAddr, Token: strings.TrimSpace(os.Getenv(tokenEnv))}
	}
	err = srv.Serve(ctx, core.Daemon{Listener: ln, Settings: e.settings(), Idle: idle, Activity: srv.Activity, Web: webOpts,
		Ready: func() {
			if *readyFD == 0 {
				fmt.Fprintf(stderr, "agentty daemon: listening on %s, pid %d, logging to %s\n", socket, os.Getpid(), logName(*logFile))
			}
			ready(daemon.ReadyListening)
		}})
	code := 0
	if err != nil {
		ready(daemon.ReadyErrorPrefix + err.Error())
		logger.Error("daemon stopped", "err", err)
		code = 1
	}
	logger.Info("daemon shutting down: terminating all sessions")
	_ = ln.Close()
	_ = srv.Close()
	return code
}

// readyReporter writes one line to descriptor fd (0: nowhere) the first
// time it is called, and closes it.
func readyReporter(fd int) func(string) {
	var f *os.File
	if fd > 0 {
		f = os.NewFile(uintptr(fd), "ready")
	}
	return func(line string) {
		if f == nil {
			return
		}
		_, _ = f.WriteString(line + "\n")
		_ = f.Close()
		f = nil
	}
}

// logName is where openDaemonLog logs, for people.
func logName(name string) string {
	if name == "-" {
		return "stderr"
	}
	if name == "" {
		dir, _ := defaultDataDir()
		return filepath.Join(dir, "daemon.log")
	}
	return name
}

// openDaemonLog opens the daemon's log file (0600, appended, rotated at
// daemon.LogKeep) in the state directory unless name says otherwise.
func openDaemonLog(name string, stderr io.Writer) (io.WriteCloser, error) {
	if name == "-" {
		return nopWriteCloser{stderr}, nil
	}
	if name == "" {
		dir, err := defaultDataDir()
		if err != nil {
			return nil, err
		}
		name = filepath.Join(dir, "daemon.log")
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return nil, err
	}
	return daemon.OpenLog(name, 0)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
