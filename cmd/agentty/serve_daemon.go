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

	"github.com/agentty/agentty/internal/daemon"
	"github.com/agentty/agentty/internal/stdin"
)

// defaultIdle is how long a daemon with no session running and no client
// connected stays.
const defaultIdle = 15 * time.Minute

// connectWithin bounds finding or starting the daemon.
const connectWithin = 30 * time.Second

// daemonClientFlags are serve's flags about the daemon it relays to.
type daemonClientFlags struct {
	standalone bool
	socket     string
	idle       time.Duration
}

func registerDaemonClient(fs *flag.FlagSet) *daemonClientFlags {
	d := &daemonClientFlags{}
	fs.BoolVar(&d.standalone, "standalone", false, "serve in this process, as before the daemon: sessions end with this client (for sandboxes and CI)")
	registerSocket(fs, &d.socket, &d.idle)
	return d
}

// registerSocket defines the flags serve and daemon share about the daemon.
func registerSocket(fs *flag.FlagSet, socket *string, idle *time.Duration) {
	fs.StringVar(socket, "socket", "", "the daemon's socket (default $XDG_RUNTIME_DIR/agentty/agentty.sock, else under the state directory)")
	fs.DurationVar(idle, "idle", defaultIdle, "the daemon exits after this long with no session running and no client connected (0: never)")
}

// socketPath is -socket or the default.
func socketPath(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	state, _ := defaultDataDir()
	return daemon.DefaultSocket(os.Getenv, state)
}

// serveOnly are serve's flags a daemon it starts is not given.
func serveOnly(fs *flag.FlagSet) map[string]bool {
	drop := map[string]bool{"standalone": true, "socket": true, "log-level": true, "debug-socket": true}
	var hf httpFlags
	scratch := flag.NewFlagSet("", flag.ContinueOnError)
	hf.register(scratch)
	scratch.VisitAll(func(f *flag.Flag) { drop[f.Name] = true })
	return drop
}

// serveViaDaemon relays this process's stdin and stdout to the user's
// daemon, starting one with this configuration when none runs, and returns
// serve's exit code. When the daemon is busy with other settings it
// returns the notice to give the client instead: the caller then serves
// this client standalone, since a settings mismatch must not leave a
// client without a server.
func serveViaDaemon(e *engineFlags, df *daemonClientFlags, args []string, logger *slog.Logger, stderr io.Writer) (code int, notice string) {
	socket, err := socketPath(df.socket)
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 2, ""
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 1, ""
	}
	cwd, _ := os.Getwd()
	fwd := forwardArgs(e.fs, args, serveOnly(e.fs))
	dargs := func(readyFD uintptr) []string {
		return append([]string{"daemon", "-socket", socket, "-ready-fd", fmt.Sprint(readyFD)}, fwd...)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	cctx, cancel := context.WithTimeout(ctx, connectWithin)
	conn, err := daemon.Connect(cctx, daemon.ConnectOptions{Socket: socket, Version: version, Settings: e.settings(),
		Spawn: func(ctx context.Context) error {
			logger.Info("starting the agentty daemon", "socket", socket)
			return daemon.Spawn(ctx, daemon.SpawnOptions{Exe: exe, Args: dargs, Dir: cwd, Warn: func(msg string) { logger.Warn(msg) }})
		},
		Warn: func(msg string) { logger.Warn(msg) }})
	cancel()
	if errors.Is(err, daemon.ErrConfigDiffers) {
		logger.Warn("serving this client standalone, in this process: its sessions end with it", "reason", err)
		return 0, standaloneNotice(err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentty serve: %v\n", err)
		return 1, ""
	}
	logger.Info("agentty serve relaying MCP to the daemon", "socket", socket, "pid", os.Getpid())
	defer context.AfterFunc(ctx, func() { _ = conn.Close() })()
	err = daemon.Relay(stdin.Pollable(), stdin.PollableStdout(), conn)
	if ctx.Err() != nil {
		return 0, ""
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		logger.Error("the daemon closed the connection (it was stopped or died); sessions may be gone", "socket", socket)
		return 1, ""
	}
	if err != nil {
		logger.Error("relay to the daemon failed", "err", err)
		return 1, ""
	}
	return 0, ""
}

// forwardArgs keeps the flags of args a daemon understands, in order, as
// given (the daemon runs in this directory and environment, so relative
// paths and the variables resolve the same).
func forwardArgs(fs *flag.FlagSet, args []string, drop map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		takesNext := f != nil && !hasValue && !isBoolFlag(f)
		if drop[name] {
			if takesNext {
				i++
			}
			continue
		}
		out = append(out, a)
		if takesNext && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	return out
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
