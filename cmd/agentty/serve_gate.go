package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/config"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/session"
)

// configSections are the tables a configuration file may hold. Subsystems
// that read their own section (cfg.Section) add its name here.
var configSections = []string{"policy", "ssh"}

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
	l.maxRead = fs.String("max-read-bytes", "4MiB", "most output bytes one call may return (max_bytes above it is refused)")
	l.auditDir = fs.String("audit-log", "", "write a JSONL audit log ("+audit.FileName+") in this directory (empty: no audit log)")
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

// gate is the policy, audit log and per-call limits serve hands to the
// MCP server.
type gate struct {
	policy   *policy.Policy
	audit    *audit.Log
	maxInput int
	maxRead  int
}

// setupGate builds the gate; also lists directories agents may not touch
// beyond the configuration and audit directories (the transcript store).
func setupGate(fs *flag.FlagSet, cfg *config.Config, l *limitValues, also ...string) (*gate, error) {
	if err := cfg.Check(fs, configSections...); err != nil {
		return nil, err
	}
	g := &gate{}
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
	if g.maxRead > session.MaxBytesCap {
		return nil, fmt.Errorf("-max-read-bytes: at most %d (replies must stay under clients' message limit)", session.MaxBytesCap)
	}
	if l.idle < 0 || l.runtime < 0 {
		return nil, fmt.Errorf("-idle-timeout and -max-runtime must be >= 0")
	}
	var rules policy.Rules
	if err := cfg.Section("policy", &rules); err != nil {
		return nil, err
	}
	protected := []string{cfg.Dir}
	for _, d := range also {
		if d != "" {
			protected = append(protected, d)
		}
	}
	if *l.auditDir != "" {
		maxSize, err := parseBytes(*l.auditMax)
		if err != nil {
			return nil, fmt.Errorf("-audit-max-size: %w", err)
		}
		g.audit, err = audit.Open(*l.auditDir, &audit.Options{MaxSize: maxSize, NoSync: *l.auditNoSync})
		if err != nil {
			return nil, err
		}
		protected = append(protected, *l.auditDir)
	}
	// The checker reads every command line the input limit lets through.
	p, err := policy.New(policy.Options{Rules: rules, Protected: protected, MaxScriptBytes: g.maxInput})
	if err != nil {
		g.close()
		return nil, err
	}
	g.policy = p
	return g, nil
}

// started logs and audits the configuration in force.
func (g *gate) started(logger *slog.Logger, fs *flag.FlagSet, cfg *config.Config) {
	var set []string
	for _, name := range slices.Sorted(mapKeys(cfg.Sources)) {
		if src := cfg.Sources[name]; src != config.FromDefault {
			set = append(set, name+"="+string(src))
		}
	}
	logger.Info("policy", "config", cfg.Path, "summary", g.policy.Summary())
	if unknown := config.UnknownEnv(fs, os.Environ(), proctree.EnvKey); len(unknown) > 0 {
		logger.Warn("environment variables that name no setting are ignored", "vars", strings.Join(unknown, " "))
	}
	_ = g.audit.Write(audit.Event{Event: audit.EventPolicy, Client: "startup", Detail: map[string]string{
		"config": cfg.Path, "policy": g.policy.Summary(), "sources": strings.Join(set, " "),
		"max_input_bytes": fmt.Sprint(g.maxInput), "max_read_bytes": fmt.Sprint(g.maxRead)}})
}

func (g *gate) close() {
	if g != nil {
		_ = g.audit.Close()
	}
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
