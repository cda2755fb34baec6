package config

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type testFlags struct {
	fs       *flag.FlagSet
	sessions *int
	memory   *string
	ttl      *time.Duration
	verbose  *bool
}

func newFlags() testFlags {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	return testFlags{fs: fs, sessions: fs.Int("max-sessions", 64, ""), memory: fs.String("session-memory", "16MiB", ""),
		ttl: fs.Duration("exited-ttl", 30*time.Minute, ""), verbose: fs.Bool("verbose", false, "")}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agentty", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func env(m map[string]string) *Options {
	return &Options{Getenv: func(k string) string { return m[k] }}
}

func TestLoad_Precedence(t *testing.T) {
	path := writeFile(t, `max-sessions = 5
session-memory = "1MiB"
exited-ttl = "10m"
verbose = true

[policy]
allow = ["git", "ls"]
`)
	cases := []struct {
		name     string
		args     []string
		env      map[string]string
		sessions int
		memory   string
		ttl      time.Duration
		src      Source
	}{
		{"file only", nil, nil, 5, "1MiB", 10 * time.Minute, FromFile},
		{"env beats file", nil, map[string]string{"AGENTTY_MAX_SESSIONS": "7", "AGENTTY_EXITED_TTL": "1h"}, 7, "1MiB", time.Hour, FromEnv},
		{"flag beats env", []string{"-max-sessions", "9"}, map[string]string{"AGENTTY_MAX_SESSIONS": "7"}, 9, "1MiB", 10 * time.Minute, FromFlag},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFlags()
			c, err := Load(f.fs, append([]string{"-config", path}, tc.args...), env(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if *f.sessions != tc.sessions || *f.memory != tc.memory || *f.ttl != tc.ttl || !*f.verbose {
				t.Fatalf("got sessions=%d memory=%s ttl=%v verbose=%v", *f.sessions, *f.memory, *f.ttl, *f.verbose)
			}
			if c.Sources["max-sessions"] != tc.src {
				t.Fatalf("source %s, want %s", c.Sources["max-sessions"], tc.src)
			}
			if c.Path != path || c.Dir != filepath.Dir(path) {
				t.Fatalf("path %q dir %q", c.Path, c.Dir)
			}
			var pol struct {
				Allow []string `toml:"allow"`
			}
			if err := c.Section("policy", &pol); err != nil || strings.Join(pol.Allow, ",") != "git,ls" {
				t.Fatalf("section: %v %v", pol, err)
			}
		})
	}
}

func TestLoad_DefaultPathAndEnvConfig(t *testing.T) {
	xdg := t.TempDir()
	f := newFlags()
	c, err := Load(f.fs, nil, env(map[string]string{"XDG_CONFIG_HOME": xdg}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != "" || c.Dir != filepath.Join(xdg, "agentty") {
		t.Fatalf("missing default file: path %q dir %q", c.Path, c.Dir)
	}
	path := writeFile(t, "max-sessions = 3\n")
	f = newFlags()
	if _, err := Load(f.fs, nil, env(map[string]string{"AGENTTY_CONFIG": path})); err != nil || *f.sessions != 3 {
		t.Fatalf("AGENTTY_CONFIG: %v sessions=%d", err, *f.sessions)
	}
}

func TestLoad_Errors(t *testing.T) {
	cases := []struct {
		name, file string
		env        map[string]string
		want       string
	}{
		{"bad toml", "max-sessions = = 1", nil, "config.toml"},
		{"bad value", `max-sessions = "many"`, nil, `key "max-sessions"`},
		{"bad env", "", map[string]string{"AGENTTY_EXITED_TTL": "soon"}, "AGENTTY_EXITED_TTL"},
		{"list at top level", `allow = ["x"]`, nil, "belong in a section"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.file)
			_, err := Load(newFlags().fs, []string{"-config", path}, env(tc.env))
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrConfig mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := Load(newFlags().fs, []string{"-config", filepath.Join(t.TempDir(), "none.toml")}, env(nil)); !errors.Is(err, ErrConfig) {
		t.Fatalf("missing explicit file: %v", err)
	}
}

func TestConfig_CheckAndSectionTypos(t *testing.T) {
	path := writeFile(t, "max-sesions = 3\n")
	f := newFlags()
	c, err := Load(f.fs, []string{"-config", path}, env(nil))
	if err == nil {
		err = c.Check(f.fs, "policy")
	}
	if err == nil || !strings.Contains(err.Error(), "max-sesions") {
		t.Fatalf("typo key: %v", err)
	}
	path = writeFile(t, "[policy]\nalow = [\"x\"]\n[polcy]\n")
	f = newFlags()
	c, err = Load(f.fs, []string{"-config", path}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	var pol struct {
		Allow []string `toml:"allow"`
	}
	if err := c.Section("policy", &pol); err == nil || !strings.Contains(err.Error(), "alow") {
		t.Fatalf("typo in section: %v", err)
	}
	if err := c.Check(f.fs, "policy"); err == nil || !strings.Contains(err.Error(), "polcy") {
		t.Fatalf("unknown section: %v", err)
	}
}

func TestEnvName(t *testing.T) {
	for flag, want := range map[string]string{
		"session-memory": "AGENTTY_SESSION_MEMORY",
		"store.max-age":  "AGENTTY_STORE_MAX_AGE",
		"x":              "AGENTTY_X",
		"Mixed-Case.2":   "AGENTTY_MIXED_CASE_2",
	} {
		if got := EnvName(flag); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", flag, got, want)
		}
	}
}

func TestUnknownEnv(t *testing.T) {
	f := newFlags()
	got := UnknownEnv(f.fs, []string{"AGENTTY_MAX_SESSIONS=3", "AGENTTY_MAX_SESION=3", "AGENTTY_SESSION=x/s1", "HOME=/h"}, "AGENTTY_SESSION")
	if strings.Join(got, ",") != "AGENTTY_MAX_SESION" {
		t.Fatal(got)
	}
	if got := UnknownEnv(f.fs, []string{"HOME=/h", "PATH=/bin"}); got != nil {
		t.Fatalf("no AGENTTY_ variable: got %q", got)
	}
}
