package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/term"

	core "github.com/agentty/agentty/internal/server"
)

const connectHelp = `agentty serve speaks MCP (JSON-RPC) on stdin/stdout; it is meant to be
launched by an MCP client, not typed at. To connect one:

  Claude Code:  claude mcp add agentty -- %[1]s serve
  mcp.json:     {"mcpServers": {"agentty": {"command": "%[1]s", "args": ["serve"]}}}

To see it work without a client, run: %[1]s demo
`

func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	e := registerEngine(fs)
	var hf httpFlags
	hf.register(fs)
	df := registerDaemonClient(fs)
	debugPath := fs.String("debug-socket", "", "with -standalone or -http: answer runtime counts (goroutines) on this unix socket, for agentty bench -scale")
	if code, ok := e.load("serve", args, stderr); !ok {
		return code
	}
	logger, err := e.logger(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 2
	}
	scfg, err := e.coreConfig(logger)
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 2
	}
	if hf.addr == "" && term.IsTerminal(int(os.Stdin.Fd())) {
		// A person typing JSON-RPC gets nothing useful: say how to
		// connect a client instead of waiting for one.
		exe, _ := os.Executable()
		fmt.Fprintf(stderr, connectHelp, exe)
		return 0
	}
	if hf.addr == "" && !df.standalone {
		code, notice := serveViaDaemon(e, df, args, logger, stderr)
		if notice == "" {
			return code
		}
		scfg.Notice = notice
	}
	var tr core.Transport = core.Stdio{}
	if hf.addr != "" {
		httpOpts, token, err := hf.options(logger)
		if err != nil {
			fmt.Fprintf(stderr, "agentty serve: %v\n", err)
			return 2
		}
		tr = core.HTTP{Options: *httpOpts, Listening: func(url string) { token.banner(stderr, url) }}
	}

	// The guard starts in core.New, after the signal handlers: once it
	// runs, a signal means shutdown.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	dbg, err := listenDebug(*debugPath, logger)
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: -debug-socket: %v\n", err)
		return 2
	}
	defer dbg.Close()
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
