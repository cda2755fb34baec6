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
	core "github.com/agentty/agentty/internal/server"
)

const connectHelp = `agentty serve speaks MCP (JSON-RPC) on stdin/stdout; it is meant to be
launched by an MCP client, not typed at. To connect one:

  Claude Code:  claude mcp add agentty -- %[1]s serve
  mcp.json:     {"mcpServers": {"agentty": {"command": "%[1]s", "args": ["serve"]}}}

To see it work without a client, run: %[1]s demo
Waiting for MCP messages on stdin (Ctrl+C to quit).
`

func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logLevel := fs.String("log-level", "info", "log level on stderr: debug, info, warn, error")
	maxSessions := fs.Int("max-sessions", core.DefaultMaxSessions, "most sessions kept at once (running and exited)")
	memory := fs.String("session-memory", "16MiB", "output kept in memory per session (e.g. 512KiB, 16MiB, 1GiB)")
	ttl := fs.Duration("exited-ttl", core.DefaultExitedTTL, "exited sessions are removed after this long (0: default, negative: never)")
	grace := fs.Duration("kill-grace", 2*time.Second, "on shutdown, time between SIGTERM and SIGKILL")
	var hf httpFlags
	hf.register(fs)
	lim := limitFlags(fs)
	sshf := addSSHFlags(fs)
	sf := storeFlags(fs)
	cgroups := containFlags(fs)
	nodeBin := fs.String("node-binary", "", "static agentty copied into containers for host docker://NAME (default: this binary, which must then be static: CGO_ENABLED=0)")
	lease := fs.Duration("lease-timeout", 30*time.Second, "a person at a session's terminal (attach, web) keeps the keyboard this long after their last key")
	toolSel := fs.String("tools", "all", "tools offered to clients: all, or a comma-separated list of groups ("+core.ToolGroups()+") and tool names")
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
	gate, err := gateOptions(fs, cfg, lim)
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "agentty serve: -log-level: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	var tr core.Transport = core.Stdio{}
	if hf.addr != "" {
		httpOpts, err := hf.options(logger)
		if err != nil {
			fmt.Fprintf(stderr, "agentty serve: %v\n", err)
			return 2
		}
		tr = core.HTTP{Options: *httpOpts}
	}
	contain, err := containOptions(cfg, *cgroups)
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 2
	}
	var sshSec sshSection
	if err := cfg.Section("ssh", &sshSec); err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 2
	}
	scfg := core.Config{Version: version, Logger: logger,
		Sessions: &core.SessionConfig{MaxSessions: *maxSessions, OutputLimit: limit, ExitedTTL: *ttl, KillGrace: *grace,
			IdleTimeout: lim.idle, MaxRuntime: lim.runtime, NoScreen: !*screens, LeaseTimeout: *lease},
		MaxInputBytes: gate.maxInput, MaxReadBytes: gate.maxRead, Policy: gate.policy, Audit: gate.audit,
		SSH: sshf.options(sshSec), NodeBinary: *nodeBin, Startup: startup(fs, cfg), Tools: strings.Split(*toolSel, ","),
		Contain: contain}
	if dataDir != "" {
		stOpts.Dir = dataDir
		scfg.Store = &stOpts
	}
	if exe, err := os.Executable(); err == nil {
		scfg.Guard = &core.GuardConfig{Exe: exe, Args: []string{guardCommand}}
	}

	// The guard starts in core.New, after the signal handlers: once it
	// runs, a signal means shutdown.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if hf.addr == "" && term.IsTerminal(int(os.Stdin.Fd())) {
		exe, _ := os.Executable()
		fmt.Fprintf(stderr, connectHelp, exe)
	}
	srv, err := core.New(scfg)
	if errors.Is(err, core.ErrStore) {
		logger.Error("cannot open the transcript store (run with --no-store to go without)", "err", err)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 2
	}
	err = srv.Serve(ctx, tr)
	if errors.Is(err, core.ErrStart) {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		_ = srv.Close()
		return 2
	}
	code := 0
	if err != nil {
		logger.Error("server stopped", "err", err)
		code = 1
	}
	logger.Info("shutting down: terminating all sessions")
	_ = srv.Close()
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
