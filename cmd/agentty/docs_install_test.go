package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
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
	const install = "go install ./cmd/agentty"
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
