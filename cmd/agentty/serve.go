package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/agentty/agentty/internal/config"
	"github.com/agentty/agentty/internal/httpserver"
	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/stdio"
)

const connectHelp = `agentty serve speaks MCP (JSON-RPC) on stdin/stdout; it is meant to be
launched by an MCP client, not typed at. To connect one:

  Claude Code:  claude mcp add agentty -- %[1]s serve
  mcp.json:     {"mcpServers": {"agentty": {"command": "%[1]s", "args": ["serve"]}}}

To see it work without a client, run: %[1]s demo
Waiting for MCP messages on stdin (Ctrl+C to quit).
`

// shutdownWait is how long a signal waits for the MCP transport to stop
// before the sessions are shut down regardless.
const shutdownWait = 3 * time.Second

func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logLevel := fs.String("log-level", "info", "log level on stderr: debug, info, warn, error")
	maxSessions := fs.Int("max-sessions", session.DefaultMaxSessions, "most sessions kept at once (running and exited)")
	memory := fs.String("session-memory", "16MiB", "output kept in memory per session (e.g. 512KiB, 16MiB, 1GiB)")
	ttl := fs.Duration("exited-ttl", session.DefaultExitedTTL, "exited sessions are removed after this long (0: default, negative: never)")
	grace := fs.Duration("kill-grace", 2*time.Second, "on shutdown, time between SIGTERM and SIGKILL")
	var hf httpFlags
	hf.register(fs)
	lim := limitFlags(fs)
	sshf := addSSHFlags(fs)
	sf := storeFlags(fs)
	screens := fs.Bool("screen", true, "render PTY sessions in a terminal emulator for read_screen (false saves about 1 MiB per PTY session)")
	cfg, err := config.Load(fs, args, nil)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) && errors.Is(err, config.ErrConfig) {
			fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		}
		return 2
	}
	stOpts, err := sf.options()
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 2
	}
	limit, err := parseBytes(*memory)
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: -session-memory: %v\n", err)
		return 2
	}
	dataDir, err := sf.dir()
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 2
	}
	gate, err := setupGate(fs, cfg, lim, dataDir)
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 2
	}
	defer gate.close()
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "agentty serve: -log-level: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	var httpOpts *httpserver.Options
	if hf.addr != "" {
		if httpOpts, err = hf.options(logger); err != nil {
			fmt.Fprintf(stderr, "agentty serve: %v\n", err)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if hf.addr == "" && term.IsTerminal(int(os.Stdin.Fd())) {
		exe, _ := os.Executable()
		fmt.Fprintf(stderr, connectHelp, exe)
	}

	// Orphans of our sessions are reparented to us, stay findable, and are reaped here.
	if err := proctree.SetSubreaper(); err != nil {
		logger.Warn("cannot become child subreaper; orphans go to init", "err", err)
	}
	var sshSec sshSection
	if err := cfg.Section("ssh", &sshSec); err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 2
	}
	pool := sshf.pool(logger, sshSec)
	defer pool.Close() // after mgr.Close below: remote sessions are terminated over their connections first
	scfg := session.Config{MaxSessions: *maxSessions, OutputLimit: limit, ExitedTTL: *ttl,
		KillGrace: *grace, Logger: logger, IdleTimeout: lim.idle, MaxRuntime: lim.runtime, MaxInputBytes: gate.maxInput,
		Remote: pool.Start, NoScreen: !*screens,
		OnExit: mcpserver.RecordExit(gate.audit, nil)}
	st, err := sf.open(stOpts, logger)
	if err != nil {
		logger.Error("cannot open the transcript store (run with --no-store to go without)", "err", err)
		return 1
	}
	if st != nil {
		defer st.Close()
		scfg.NewLog, scfg.Recorder, scfg.NextID = st.NewLog, st.Recorder(), st.NextID
	}
	mgr := session.NewManager(scfg)
	gate.started(logger, fs, cfg)
	var g *proctree.Guard
	if exe, err := os.Executable(); err == nil {
		g, err = proctree.StartGuard(mgr.Spawner(), exe, []string{guardCommand}, mgr.Instance())
		if err != nil {
			logger.Warn("no guard process; children may outlive a crash", "err", err)
		}
	}
	owned := mgr.Owns
	if g != nil {
		owned = func(pid int) bool { return pid == g.PID() || mgr.Owns(pid) }
	}
	reaperCtx, stopReaper := context.WithCancel(context.Background())
	reaperDone := make(chan struct{})
	go func() {
		defer close(reaperDone)
		proctree.RunReaper(reaperCtx, owned)
	}()

	// teardown terminates every session's process tree, then the guard
	// and the reaper.
	teardown := func() {
		mgr.Close()
		if g != nil {
			_ = g.Close()
		}
		stopReaper()
		<-reaperDone
	}
	srv := mcpserver.New(mgr, &mcpserver.Options{Version: version, Logger: logger, Policy: gate.policy, Audit: gate.audit, MaxReadBytes: gate.maxRead, Hosts: pool, Remote: pool, Store: st})
	runDone := make(chan error, 1)
	if hf.addr != "" {
		hs, err := startHTTP(srv, httpOpts, logger)
		if err != nil {
			fmt.Fprintf(stderr, "agentty serve: %v\n", err)
			teardown()
			return 2
		}
		go func() { runDone <- hs.Serve(ctx) }()
	} else {
		logger.Info("agentty serving MCP on stdio", "version", version, "pid", os.Getpid())
		// A malformed line is answered with an error; the SDK's own stdio
		// transport would end the server, and every session, at the first.
		tr := &stdio.Transport{Logger: logger, MaxReply: mcpserver.MaxReply}
		go func() { runDone <- srv.Run(ctx, tr) }()
	}
	select {
	case err = <-runDone:
	case <-ctx.Done():
		// A client that stopped reading can leave the transport blocked in a
		// write forever; a signal must still end the server.
		t := time.NewTimer(shutdownWait)
		select {
		case err = <-runDone:
		case <-t.C:
			logger.Warn("transport did not stop; shutting down anyway")
		}
		t.Stop()
	}
	code := 0
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) && ctx.Err() == nil {
		logger.Error("server stopped", "err", err)
		code = 1
	}
	logger.Info("shutting down: terminating all sessions")
	teardown()
	return code
}

// parseBytes reads sizes like 16MiB, 512KiB, 1GiB, 1000000.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive size like 16MiB, got %q", s)
	}
	return n * mult, nil
}
