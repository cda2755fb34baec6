package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentty/agentty/internal/config"
	"github.com/agentty/agentty/internal/guardstart"
	core "github.com/agentty/agentty/internal/server"
)

// engineFlags are the flags that configure the server core, shared by
// serve and daemon so both read the same file, environment and flags.
type engineFlags struct {
	fs          *flag.FlagSet
	logLevel    *string
	maxSessions *int
	memory      *string
	ttl         *time.Duration
	grace       *time.Duration
	lim         *limitValues
	sshf        *sshFlags
	sf          *storeFlagSet
	screens     *bool
	tools       *string
	nodeBin     *string
	nodeLink    *string
	lease       *time.Duration
	maxRounds   *int
	cgroups     *bool

	cfg *config.Config // set by load
}

func registerEngine(fs *flag.FlagSet) *engineFlags {
	return &engineFlags{fs: fs,
		logLevel:    fs.String("log-level", "info", "log level on stderr: debug, info, warn, error"),
		maxSessions: fs.Int("max-sessions", core.DefaultMaxSessions, "most sessions kept at once (running and exited)"),
		memory:      fs.String("session-memory", "16MiB", "output kept in memory per session (e.g. 512KiB, 16MiB, 1GiB)"),
		ttl:         fs.Duration("exited-ttl", core.DefaultExitedTTL, "exited sessions are removed after this long (0: default, negative: never)"),
		grace:       fs.Duration("kill-grace", 2*time.Second, "on shutdown, time between SIGTERM and SIGKILL"),
		lim:         limitFlags(fs),
		sshf:        addSSHFlags(fs),
		sf:          storeFlags(fs),
		screens:     fs.Bool("screen", true, "render PTY sessions in a terminal emulator for read_screen (false saves about 1 MiB per PTY session)"),
		nodeBin:     fs.String("node-binary", "", "static agentty copied into containers for host docker://NAME (default: this binary, which must then be static: CGO_ENABLED=0)"),
		nodeLink:    fs.String("node-link", "", "agentty-link, which reaches containers and pods (default: the one next to this binary, else on PATH)"),
		lease:       fs.Duration("lease-timeout", 30*time.Second, "a person at a session's terminal (attach, web) keeps the keyboard this long after their last key"),
		maxRounds:   fs.Int("interactive-max-rounds", 50, "most questions one interactive run_command asks the user"),
		cgroups:     containFlags(fs),
		tools:       fs.String("tools", "all", "tools offered to clients: all, or a comma-separated list of groups ("+core.ToolGroups()+") and tool names"),
	}
}

// load parses args with the file and the environment; it returns the exit
// code to end with when the configuration is unusable.
func (e *engineFlags) load(cmd string, args []string, stderr io.Writer) (int, bool) {
	cfg, err := config.Load(e.fs, args, nil)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) && errors.Is(err, config.ErrConfig) {
			fmt.Fprintf(stderr, "agentty %s: %v\n", cmd, err)
		}
		return 2, false
	}
	e.cfg = cfg
	return 0, true
}

// logger logs at -log-level to w.
func (e *engineFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(*e.logLevel)); err != nil {
		return nil, fmt.Errorf("-log-level: %w", err)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), nil
}

// coreConfig checks the loaded flags and builds the core's configuration.
func (e *engineFlags) coreConfig(logger *slog.Logger) (core.Config, error) {
	stOpts, err := e.sf.options()
	if err != nil {
		return core.Config{}, err
	}
	limit, err := parseBytes(*e.memory)
	if err != nil {
		return core.Config{}, fmt.Errorf("-session-memory: %w", err)
	}
	dataDir, err := e.sf.dir()
	if err != nil {
		return core.Config{}, err
	}
	gate, err := gateOptions(e.fs, e.cfg, e.lim)
	if err != nil {
		return core.Config{}, err
	}
	var sshSec sshSection
	if err := e.cfg.Section("ssh", &sshSec); err != nil {
		return core.Config{}, err
	}
	contain, err := containOptions(e.cfg, *e.cgroups)
	if err != nil {
		return core.Config{}, err
	}
	lim := e.lim
	scfg := core.Config{Version: version, Logger: logger,
		Sessions: &core.SessionConfig{MaxSessions: *e.maxSessions, OutputLimit: limit, ExitedTTL: *e.ttl, KillGrace: *e.grace,
			IdleTimeout: lim.idle, MaxRuntime: lim.runtime, NoScreen: !*e.screens, LeaseTimeout: *e.lease},
		MaxInputBytes: gate.maxInput, MaxReadBytes: gate.maxRead, Policy: gate.policy, Audit: gate.audit,
		SSH: e.sshf.options(sshSec), NodeBinary: *e.nodeBin, NodeLink: *e.nodeLink, Startup: startup(e.fs, e.cfg), Tools: strings.Split(*e.tools, ","),
		MaxRounds: *e.maxRounds, Contain: contain, AdaptiveProcs: true}
	if dataDir != "" {
		stOpts.Dir = dataDir
		scfg.Store = &stOpts
	}
	if exe, err := os.Executable(); err == nil {
		scfg.Guard = &core.GuardConfig{Exe: exe, Args: []string{guardstart.Arg}, Keeper: []string{guardstart.KeeperArg}}
		scfg.Askpass = &core.AskpassConfig{Exe: exe}
	}
	return scfg, nil
}

// pathFlags name files or directories: their settings are compared as
// absolute paths.
var pathFlags = map[string]bool{"data-dir": true, "audit-log": true, "ssh-config": true, "ssh-known-hosts": true}

// settings are the engine's configuration as a daemon compares it: every
// engine flag's value (paths made absolute) and the configuration file's
// path and content, whose [policy] and [ssh] sections no flag shows, and
// AGENTTY_PORTABLE. The log level is not a setting: each process logs on
// its own.
func (e *engineFlags) settings() map[string]string {
	names := map[string]bool{}
	registerEngine(flag.NewFlagSet("", flag.ContinueOnError)).fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	delete(names, "log-level")
	out := map[string]string{}
	e.fs.VisitAll(func(f *flag.Flag) {
		if !names[f.Name] {
			return
		}
		v := f.Value.String()
		if f.Name == "data-dir" {
			v, _ = e.sf.dir() // where the store really is: $XDG_STATE_HOME differs between clients
		}
		if pathFlags[f.Name] && v != "" {
			if abs, err := filepath.Abs(v); err == nil {
				v = abs
			}
		}
		out[f.Name] = v
	})
	// The strategies the engine runs with (docs/platforms.md): a serve
	// asking for other ones than the daemon's must not be given the
	// daemon's. Absent when unset, so fingerprints stay what they were.
	if v := os.Getenv(core.PortableEnv); v != "" {
		out[core.PortableEnv] = v
	}
	if e.cfg.Path != "" {
		out["config"] = e.cfg.Path
		if b, err := os.ReadFile(e.cfg.Path); err == nil {
			sum := sha256.Sum256(b)
			out["config-content"] = "sha256:" + hex.EncodeToString(sum[:8])
		}
	}
	return out
}
