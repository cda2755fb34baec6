package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
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
	cfg, p := loadPolicy(t, fs, "../../docs/config.example.toml")
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

// TestConfigExample_PolicyDoc loads the [policy] example of docs/policy.md
// the way serve does and checks that it decides what its comments say.
func TestConfigExample_PolicyDoc(t *testing.T) {
	b, err := os.ReadFile("../../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "```toml\n")
	if !ok || !strings.HasPrefix(block, "[policy]\n") {
		t.Fatal("docs/policy.md has no ```toml block starting with [policy]")
	}
	block, _, _ = strings.Cut(block, "```")
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	_, p := loadPolicy(t, fs, path)
	const root = "/home/me/projects"
	for _, c := range []struct{ cmd, cwd, want string }{
		{"ls -l", root, ""},
		{"python3 -q", root + "/app", ""},
		{"curl -s example.com", root, policy.RuleAllow},
		{"sudo ls", root, policy.RuleDeny},
		{"/usr/bin/rm x", root, policy.RuleDeny},
		{"ls && rm  -rf build", root, policy.RuleDenyPatterns},
		{"ls; r''m x", root, policy.RuleDeny},
		{"npm install --force", root, policy.RuleDenyPatterns},
		{"git status", root, policy.RuleConfirm},
		{"ls", "/tmp", policy.RuleCwd},
	} {
		if d := p.CheckScript(c.cmd, c.cwd); d.Rule != c.want && !(c.want == "" && d.Allowed()) {
			t.Errorf("%q in %s: %s, want rule %q", c.cmd, c.cwd, d, c.want)
		}
	}
}

// loadPolicy loads the configuration file at path with serve's flags fs
// (no environment), checks its sections, and compiles its [policy] table.
func loadPolicy(t *testing.T, fs *flag.FlagSet, path string) (*config.Config, *policy.Policy) {
	t.Helper()
	cfg, err := config.Load(fs, []string{"-config", path}, &config.Options{Getenv: func(string) string { return "" }})
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
	return cfg, p
}
