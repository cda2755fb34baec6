package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/agentty/agentty/internal/config"
	core "github.com/agentty/agentty/internal/server"
)

// configSections are the tables a configuration file may hold. Subsystems
// that read their own section (cfg.Section) add its name here.
var configSections = []string{"policy", "ssh", "limits", "sandbox"}

// limitValues are the limit and audit flags of serve.
type limitValues struct {
	idle, runtime time.Duration
	maxInput      *string
	maxRead       *string
	auditDir      *string
	auditMax      *string
	auditNoSync   *bool
}

func limitFlags(fs *flag.FlagSet) *limitValues {
	l := &limitValues{}
	fs.DurationVar(&l.idle, "idle-timeout", 0, "terminate a running session after this long with no read or input (0: never)")
	fs.DurationVar(&l.runtime, "max-runtime", 0, "terminate a session after it has run this long (0: never)")
	l.maxInput = fs.String("max-input-bytes", "1MiB", "most bytes of input one send_input may carry, and the longest command line a call may run")
	l.maxRead = fs.String("max-read-bytes", "8MiB", "most output bytes one call may return (max_bytes above it is refused)")
	l.auditDir = fs.String("audit-log", "", "write a JSONL audit log ("+core.AuditFileName+") in this directory (empty: no audit log)")
	l.auditMax = fs.String("audit-max-size", "10MiB", "rotate the audit log when it reaches this size (5 old files kept)")
	l.auditNoSync = fs.Bool("audit-no-sync", false, "do not fsync the audit log after each event (still one write per event)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: agentty serve [flags]\n\nEvery flag can also be set in the config file (key = flag name, e.g. max-sessions = 8)\n"+
			"or the environment (%s); command-line flags win over the environment, which wins over the file.\n"+
			"Command policy rules go in the file's [policy] section; see the README.\n\n", config.EnvName("max-sessions")+"=8")
		fs.PrintDefaults()
	}
	return l
}

// gateConfig is the policy, audit log and per-call limits of serve.
type gateConfig struct {
	maxInput int
	maxRead  int
	policy   *core.PolicyConfig
	audit    *core.AuditConfig // nil: no audit log
}

// gateOptions checks the configuration and the limit flags; the server
// opens the audit log and compiles the policy, which also protects the
// transcript store's and the audit log's directories.
func gateOptions(fs *flag.FlagSet, cfg *config.Config, l *limitValues) (*gateConfig, error) {
	if err := cfg.Check(fs, configSections...); err != nil {
		return nil, err
	}
	g := &gateConfig{}
	for _, b := range []struct {
		name string
		val  string
		dst  *int
	}{{"max-input-bytes", *l.maxInput, &g.maxInput}, {"max-read-bytes", *l.maxRead, &g.maxRead}} {
		n, err := parseBytes(b.val)
		if err != nil {
			return nil, fmt.Errorf("-%s: %w", b.name, err)
		}
		*b.dst = int(n)
	}
	if g.maxRead > core.MaxReadCap {
		return nil, fmt.Errorf("-max-read-bytes: at most %d (replies must stay under clients' message limit)", core.MaxReadCap)
	}
	if l.idle < 0 || l.runtime < 0 {
		return nil, fmt.Errorf("-idle-timeout and -max-runtime must be >= 0")
	}
	var rules core.PolicyRules
	if err := cfg.Section("policy", &rules); err != nil {
		return nil, err
	}
	g.policy = &core.PolicyConfig{Rules: rules, Protected: []string{cfg.Dir}}
	if *l.auditDir != "" {
		maxSize, err := parseBytes(*l.auditMax)
		if err != nil {
			return nil, fmt.Errorf("-audit-max-size: %w", err)
		}
		g.audit = &core.AuditConfig{Dir: *l.auditDir, MaxSize: maxSize, NoSync: *l.auditNoSync}
	}
	return g, nil
}

// startup describes the configuration in force for the server's startup
// log and audit event.
func startup(fs *flag.FlagSet, cfg *config.Config) *core.Startup {
	var set []string
	for _, name := range slices.Sorted(mapKeys(cfg.Sources)) {
		if src := cfg.Sources[name]; src != config.FromDefault {
			set = append(set, name+"="+string(src))
		}
	}
	return &core.Startup{ConfigPath: cfg.Path, Sources: set,
		IgnoredEnv: config.UnknownEnv(fs, os.Environ(), core.MarkerEnv, core.PortableEnv, tokenEnv)}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
