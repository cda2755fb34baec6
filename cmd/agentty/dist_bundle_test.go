package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDist_Bundle unpacks this platform's MCP bundle as a client does and
// starts the server its manifest declares, with ${__dirname} the unpacked
// directory and ${user_config.*} what a person set: one python REPL round
// trip, the configuration file's policy in force, transcripts in the data
// directory.
func TestDist_Bundle(t *testing.T) {
	dist := distDir(t)
	s := readDistServer(t, dist)
	dir := t.TempDir()
	unzipTo(t, filepath.Join(dist, hostArtifact(s.Version, ".mcpb")), dir)

	var m struct {
		ManifestVersion string `json:"manifest_version"`
		Version         string
		License         string
		Server          struct {
			Type       string
			EntryPoint string `json:"entry_point"`
			MCPConfig  struct {
				Command string
				Args    []string
				Env     map[string]string
			} `json:"mcp_config"`
		}
		Compatibility struct{ Platforms []string }
		UserConfig    map[string]struct{ Type string } `json:"user_config"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	if m.ManifestVersion != "0.3" || m.Server.Type != "binary" || m.Version != s.Version || m.License != "MIT" ||
		!slices.Equal(m.Compatibility.Platforms, []string{runtime.GOOS}) ||
		m.UserConfig["data_dir"].Type != "directory" || m.UserConfig["config_file"].Type != "file" {
		t.Fatalf("manifest.json: %s", b)
	}
	if fi, err := os.Stat(filepath.Join(dir, m.Server.EntryPoint)); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("entry point %s: %v (mode %v): a client runs it, so it must be executable", m.Server.EntryPoint, err, fi.Mode())
	}

	data := t.TempDir()
	conf := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(conf, []byte("[policy]\ndeny = [\"sh\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	subst := strings.NewReplacer("${__dirname}", dir, "${user_config.data_dir}", data, "${user_config.config_file}", conf)
	h := newDaemonHome(t)
	cmd := exec.Command(subst.Replace(m.Server.MCPConfig.Command))
	for _, a := range m.Server.MCPConfig.Args {
		cmd.Args = append(cmd.Args, subst.Replace(a))
	}
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "AGENTTY_SOCKET=" + h.socket, "XDG_STATE_HOME=" + h.state}
	for k, v := range m.Server.MCPConfig.Env {
		cmd.Env = append(cmd.Env, k+"="+subst.Replace(v))
	}
	cmd.Stderr = logFile(t, "bundle-serve.log")
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bundle-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to %v: %v\n%s", cmd.Args, err, readFile(t, cmd.Stderr.(*os.File)))
	}
	defer cs.Close()
	if v := cs.InitializeResult().ServerInfo.Version; v != s.Version {
		t.Errorf("server version %q, want %q", v, s.Version)
	}
	call := func(name string, args map[string]any) (map[string]any, *mcp.CallToolResult) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, _ := res.StructuredContent.(map[string]any)
		return out, res
	}
	started, res := call("start_process", map[string]any{"argv": []string{"python3", "-q"}})
	if res.IsError || started["output"] != ">>> " {
		t.Fatalf("start_process python3: %v %v", started, allText(res))
	}
	reply, _ := call("send_input", map[string]any{"session_id": started["session_id"], "text": "6 * 7", "enter": true})
	if reply["output"] != "42\n>>> " {
		t.Errorf("send_input 6 * 7: %v, want 42 and the prompt", reply)
	}
	call("terminate_process", map[string]any{"session_id": started["session_id"]})
	if _, res := call("start_process", map[string]any{"argv": []string{"sh", "-c", "true"}}); !res.IsError || !strings.Contains(allText(res), "sh") {
		t.Errorf("start_process sh under the configuration file's deny = [\"sh\"]: %q (error %v), want it refused", allText(res), res.IsError)
	}
	if entries, _ := os.ReadDir(data); len(entries) == 0 {
		t.Errorf("the data directory %s is empty: the transcript store is not there", data)
	}
}

// unzipTo extracts a zip into dir with the modes its entries carry, as a
// client unpacking a bundle does.
func unzipTo(t *testing.T, path, dir string) {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, f := range z.File {
		dst := filepath.Join(dir, filepath.FromSlash(f.Name))
		if !strings.HasPrefix(dst, dir+string(filepath.Separator)) {
			t.Fatalf("entry %q leaves the directory", f.Name)
		}
		if f.FileInfo().IsDir() {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, f.Mode().Perm())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, r); err != nil {
			t.Fatal(err)
		}
		w.Close()
		r.Close()
	}
}
