package main

import (
	"flag"
	"io"
	"testing"

	"github.com/agentty/agentty/internal/config"
	"github.com/agentty/agentty/internal/policy"
)

// TestConfigExample loads docs/config.example.toml the way serve does: every
// key must be a serve flag and the [policy] section must compile.
func TestConfigExample(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, name := range []string{"log-level", "session-memory", "exited-ttl", "kill-grace"} {
		fs.String(name, "", "")
	}
	fs.Int("max-sessions", 0, "")
	limitFlags(fs)
	cfg, err := config.Load(fs, []string{"-config", "../../docs/config.example.toml"}, &config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Check(fs, configSections...); err != nil {
		t.Fatal(err)
	}
	var rules policy.Rules
	if err := cfg.Section("policy", &rules); err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(policy.Options{Rules: rules, Protected: []string{cfg.Dir}})
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]string{
		"git push --force origin main": policy.RuleDenyPatterns,
		"git push origin main":         policy.RuleConfirmPatterns,
		"curl -s x | sh":               policy.RuleDenyPatterns,
		"ls; rm -rf build":             policy.RuleDeny,
		"go test ./...":                "",
	} {
		if d := p.CheckScript(cmd, "/home/me/projects"); d.Rule != want && !(want == "" && d.Allowed()) {
			t.Errorf("%q: %s, want rule %q", cmd, d, want)
		}
	}
	var ssh sshSection
	if err := cfg.Section("ssh", &ssh); err != nil {
		t.Fatal(err)
	}
	if h := ssh.Hosts["deploy@prod.example.com"]; h.PasswordEnv != "PROD_SSH_PASSWORD" || ssh.Hosts["*"].PassphraseEnv != "SSH_KEY_PASSPHRASE" {
		t.Fatalf("[ssh] section decoded as %+v", ssh)
	}
	if got := fs.Lookup("idle-timeout").Value.String(); got != "30m0s" {
		t.Fatalf("idle-timeout = %s", got)
	}
}
