package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	core "github.com/agentty/agentty/internal/server"
)

// TestConfigExample_ContainmentDoc loads the [limits] and [sandbox] example
// of docs/configuration.md the way serve does and checks what it decodes to.
func TestConfigExample_ContainmentDoc(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "## Containment")
	_, block, ok := strings.Cut(section, "```toml\n")
	if !ok || !strings.HasPrefix(block, "[limits]\n") {
		t.Fatal("docs/configuration.md's Containment section has no ```toml block starting with [limits]")
	}
	block, _, _ = strings.Cut(block, "```")
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cgroups := containFlags(fs)
	cfg, _ := loadPolicy(t, fs, path)
	got, err := containOptions(cfg, *cgroups)
	if err != nil {
		t.Fatal(err)
	}
	want := &core.ContainConfig{Cgroups: true, Profile: core.ContainProfile{
		Limits: core.ContainLimits{MemoryMax: 2 << 30, PidsMax: 512, AddressSpace: 4 << 30, CPUSeconds: 3600,
			FileSize: 1 << 30, OpenFiles: 4096, NoCoreDumps: true},
		Sandbox: core.ContainSandbox{Filesystem: "readonly", Read: []string{}, Write: []string{"/tmp"}, NoNewPrivs: true},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got, want)
	}
}

// TestContainOptions_Refuses: a bad [sandbox] stops the server at startup.
func TestContainOptions_Refuses(t *testing.T) {
	for _, tc := range []struct{ toml, want string }{
		{"[sandbox]\nfilesystem = \"everything\"\n", `filesystem must be "readonly" or "listed"`},
		{"[sandbox]\nwrite = [\"tmp\"]\n", `sandbox path "tmp" is not absolute`},
		{"[sandbox]\nwrite = [\"/srv\"]\n", `write paths restrict nothing without one`},
		{"[sandbox]\nfilesystem = \"readonly\"\nread = [\"/srv\"]\n", `read paths restrict nothing in filesystem "readonly"`},
		{"[limits]\nmemory_max = \"lots\"\n", "want a positive size"},
		{"[limits]\nmemroy_max = 1\n", `unknown key "memroy_max"`},
	} {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte(tc.toml), 0o600); err != nil {
			t.Fatal(err)
		}
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		cfg, _ := loadPolicy(t, fs, path)
		_, err := containOptions(cfg, true)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.toml, err, tc.want)
		}
	}
}
