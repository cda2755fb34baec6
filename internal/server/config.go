package server

import (
	"log/slog"
	"time"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/httpserver"
	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/platform"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/sandbox"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/sshbackend"
	"github.com/agentty/agentty/internal/store"
)

// Config configures a Server. Every pointer is an optional section: nil
// means its defaults (or, where said, the feature off).
type Config struct {
	// Version is reported to clients and in the startup log.
	Version string
	// NodeBinary is the static agentty copied into containers (host
	// docker://NAME); "" copies the running executable.
	NodeBinary string
	// NodeLink is the agentty-link that reaches containers and pods; ""
	// looks next to the running executable, then on PATH.
	NodeLink string
	// Logger receives the server's log (nil: discarded).
	Logger *slog.Logger
	// Sessions configures the session manager (nil: defaults).
	Sessions *SessionConfig
	// MaxInputBytes caps the input of one call and the longest command line
	// a call may run (0: the session manager's default).
	MaxInputBytes int
	// MaxReadBytes caps the output one call may return (0: MaxReadCap).
	MaxReadBytes int
	// Policy decides which commands may run (nil: all, with only the
	// server's own directories protected).
	Policy *PolicyConfig
	// Audit writes a JSONL audit log (nil: none).
	Audit *AuditConfig
	// Store keeps transcripts on disk (nil: output is kept in memory only).
	Store *StoreConfig
	// SSH configures the connection pool behind host arguments (nil:
	// ~/.ssh/config and ~/.ssh/known_hosts). Its Logger is the server's.
	SSH *SSHOptions
	// Guard starts a watchdog process that kills every child once the
	// server is gone, however it died (nil: no guard).
	Guard *GuardConfig
	// Tools selects the tools offered: group names (core, shell, history,
	// ssh), tool names or "all" (nil: all). See docs/tools.md.
	Tools []string
	// Startup describes where the configuration came from, for the
	// startup log and audit event (nil: nothing to say).
	Startup *Startup
	// MaxRounds caps the questions of an interactive run_command (0: 50).
	MaxRounds int
	// Askpass gives sessions SUDO_ASKPASS, so sudo -A asks the person
	// (nil: off).
	Askpass *AskpassConfig
	// Contain holds local sessions in cgroups, under limits and a sandbox
	// (nil: process-tree tracking, no limits, no sandbox).
	Contain *ContainConfig
	// AdaptiveProcs runs the process's Go code on one CPU while the work
	// is light and on every CPU during bulk work (internal/procs). It sets
	// the whole process's scheduler, so the serve and daemon commands turn
	// it on and servers built inside other programs' tests leave it off.
	AdaptiveProcs bool
	// Notice is said to every client once, after the instructions of the
	// initialize result: why this server is not the one they expect
	// ("": nothing).
	Notice string
}

// AskpassConfig is how sessions reach the server for sudo's password:
// Exe with "askpass" must end up in cmd/agentty's askpass command.
type AskpassConfig struct {
	Exe string
}

// SessionConfig configures the session manager; zero fields are defaults.
type SessionConfig struct {
	MaxSessions int           // running and exited sessions kept (DefaultMaxSessions)
	OutputLimit int64         // output bytes kept in memory per session
	ExitedTTL   time.Duration // exited sessions are removed after this; <0 never
	KillGrace   time.Duration // SIGTERM to SIGKILL when sessions are terminated
	// IdleTimeout terminates a running session with no read or input for
	// this long, MaxRuntime one that ran this long (0: never).
	IdleTimeout, MaxRuntime time.Duration
	// NoScreen leaves PTY sessions without a terminal emulator.
	NoScreen bool
	// LeaseTimeout is how long a person at the terminal (attach, web)
	// keeps the keyboard after their last key (0: 30 s).
	LeaseTimeout time.Duration
}

// PolicyConfig is the command policy.
type PolicyConfig struct {
	Rules PolicyRules
	// Protected are directories agents may not touch (the configuration
	// directory); the store's and audit log's directories are added.
	Protected []string
}

// AuditConfig is the audit log.
type AuditConfig struct {
	Dir     string // the log is Dir/AuditFileName
	MaxSize int64  // rotate at this size (0: 10 MiB)
	NoSync  bool   // no fsync after each event
}

// StoreConfig is the transcript store.
type StoreConfig struct {
	Dir             string
	MaxSessionBytes int64         // output kept on disk per session (0: default)
	MaxTotalBytes   int64         // output kept on disk in all (0: default)
	MaxAge          time.Duration // ended sessions older than this are pruned; <0 never
}

// GuardConfig is how the guard process is started: Exe with Args must
// end up in RunGuard.
type GuardConfig struct {
	Exe  string
	Args []string
	// Keeper are the arguments that make Exe a session's keeper
	// (proctree.RunKeeper; session.Config.Keeper); nil: sessions no
	// cgroup holds start without one.
	Keeper []string
}

// Startup describes the configuration in force.
type Startup struct {
	ConfigPath string   // the configuration file
	Sources    []string // "setting=source" for each setting not at its default
	IgnoredEnv []string // environment variables that name no setting
}

// ToolGroups names the tool groups Config.Tools accepts, for flag help.
func ToolGroups() string { return mcpserver.ToolGroups() }

// Engine types a front end's configuration names, so that command lines
// reach the engine only through this package.
type (
	PolicyRules = policy.Rules
	SSHOptions  = sshbackend.Options
	SSHHostAuth = sshbackend.HostAuth
	SSHSecret   = sshbackend.Secret
	HTTPOptions = httpserver.Options

	ContainConfig  = session.ContainConfig
	ContainProfile = contain.Profile
	ContainLimits  = contain.Limits
	ContainSandbox = contain.Sandbox
)

// Defaults and limits of the engine, for flags and their help.
const (
	DefaultMaxSessions = session.DefaultMaxSessions
	DefaultExitedTTL   = session.DefaultExitedTTL
	// MaxReadCap is the most MaxReadBytes may be: replies must stay under
	// clients' message limit.
	MaxReadCap       = session.MaxBytesCap
	DefaultRetainAge = store.DefaultMaxAge
	AuditFileName    = audit.FileName
	// MarkerEnv is the environment variable that marks agentty's children;
	// it is not a setting.
	MarkerEnv = proctree.EnvKey
	// PortableEnv switches Linux to macOS's strategies (platform.Env); it
	// is read by the engine, not a flag's setting.
	PortableEnv = platform.Env

	DefaultHTTPSessionIdle   = httpserver.DefaultSessionIdle
	DefaultHTTPBodyTimeout   = httpserver.DefaultBodyTimeout
	DefaultHTTPMaxConns      = httpserver.DefaultMaxConns
	DefaultHTTPMaxConnsPerIP = httpserver.DefaultMaxConnsPerIP
)

// ParseSecretFlag splits a HOST=ENV_VAR flag value naming where an SSH
// secret is kept.
func ParseSecretFlag(v string) (host, env string, err error) {
	return sshbackend.ParseSecretFlag(v)
}

// SandboxHelperArg is the hidden subcommand the sandbox helper runs as:
// the binary re-executes itself to apply a session's sandbox before the
// program starts.
const SandboxHelperArg = sandbox.HelperArg

// RunSandboxHelper is the sandbox helper's main; it returns only on failure.
func RunSandboxHelper() int { return sandbox.Main() }

// RunGuard is the guard process's main: it kills everything the server
// started once the server is gone. It returns the exit code.
func RunGuard() int { return proctree.RunGuard() }
