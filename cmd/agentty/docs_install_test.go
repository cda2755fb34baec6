package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// TestDocs_InstallAndConnectAgree checks that README's install step and
// client configurations are the ones agentty's own help prints: the binary
// is installed as agentty on PATH, and Claude Code and mcp.json clients
// launch it by that name.
func TestDocs_InstallAndConnectAgree(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	section, _, _ := strings.Cut(readme[strings.Index(readme, "## Connect an MCP client"):], "\n## ")
	help := fmt.Sprintf(connectHelp, "agentty")
	const install = "CGO_ENABLED=0 go install ./cmd/..."
	for _, c := range []struct{ what, text, want string }{
		{"agentty help", usage, install},
		{"agentty help", usage, "claude mcp add agentty -- agentty serve"},
		{"README Connect an MCP client", section, "\n" + install + " "},
		{"README Connect an MCP client", section, "\nclaude mcp add agentty -- agentty serve\n"},
		{"agentty serve on a terminal", help, "claude mcp add agentty -- agentty serve\n"},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s lacks %q", c.what, c.want)
		}
	}
	// The mcp.json shown in README and the one serve prints are the same.
	_, block, ok := strings.Cut(section, "```json\n")
	if !ok {
		t.Fatal("README Connect an MCP client has no mcp.json block")
	}
	block, _, _ = strings.Cut(block, "```")
	var fromReadme, fromHelp any
	if err := json.Unmarshal([]byte(block), &fromReadme); err != nil {
		t.Fatalf("README mcp.json: %v", err)
	}
	_, line, _ := strings.Cut(help, "mcp.json:")
	line, _, _ = strings.Cut(line, "\n")
	if err := json.Unmarshal([]byte(line), &fromHelp); err != nil {
		t.Fatalf("serve's mcp.json %q: %v", line, err)
	}
	if !reflect.DeepEqual(fromReadme, fromHelp) {
		t.Errorf("README mcp.json %v, serve prints %v", fromReadme, fromHelp)
	}
}

// TestDocs_CodexConfigAgrees checks that README's Codex configuration
// launches agentty exactly as its mcp.json does.
func TestDocs_CodexConfigAgrees(t *testing.T) {
	section := readmeSection(t, "## Connect an MCP client")
	_, js, _ := strings.Cut(section, "```json\n")
	js, _, _ = strings.Cut(js, "```")
	var mcpJSON struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(js), &mcpJSON); err != nil {
		t.Fatalf("README mcp.json: %v", err)
	}
	_, tm, ok := strings.Cut(section, "```toml\n")
	if !ok {
		t.Fatal("README Connect an MCP client has no Codex config.toml block")
	}
	tm, _, _ = strings.Cut(tm, "```")
	var codex struct {
		MCPServers map[string]struct {
			Command string   `toml:"command"`
			Args    []string `toml:"args"`
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(tm, &codex); err != nil {
		t.Fatalf("README Codex config.toml: %v", err)
	}
	c, j := codex.MCPServers["agentty"], mcpJSON.MCPServers["agentty"]
	if c.Command != "agentty" || c.Command != j.Command || !slices.Equal(c.Args, j.Args) {
		t.Errorf("Codex launches %+v, mcp.json %+v", codex.MCPServers, mcpJSON.MCPServers)
	}
	if want := "`codex mcp add agentty -- agentty serve`"; !strings.Contains(section, want) {
		t.Errorf("README Connect an MCP client lacks %s", want)
	}
}

// TestDocs_ReadmeListsEveryTool checks that README's tool table has one
// line per tool, exactly the tools of tools/list (its golden file).
func TestDocs_ReadmeListsEveryTool(t *testing.T) {
	b, err := os.ReadFile("../../internal/mcpserver/testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tool := range golden.Tools {
		want = append(want, tool.Name)
	}
	var got []string
	for _, line := range strings.Split(readmeSection(t, "## Tools"), "\n") {
		if name, ok := strings.CutPrefix(line, "| `"); ok {
			name, _, _ = strings.Cut(name, "`")
			got = append(got, name)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("README Tools lists %q\ntools/list has %q", got, want)
	}
}

// TestDocs_EveryServeFlagDocumented checks that every flag "agentty serve
// -h" prints is written as `-flag` in docs/configuration.md.
func TestDocs_EveryServeFlagDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := selfCommand(t, "serve", "-h").CombinedOutput()
	flags := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(string(out), -1)
	if len(flags) < 20 {
		t.Fatalf("serve -h lists %d flags:\n%s", len(flags), out)
	}
	for _, f := range flags {
		if !regexp.MustCompile("`-" + regexp.QuoteMeta(f[1]) + "[^a-z0-9-]").Match(b) {
			t.Errorf("docs/configuration.md does not mention `-%s`", f[1])
		}
	}
}

// readmeSection returns README.md from the heading to the next "## " one.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no %q section", heading)
	}
	section, _, _ := strings.Cut(after, "\n## ")
	return section
}
