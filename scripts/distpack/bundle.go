package main

import (
	"path/filepath"
)

// The MCP bundle's manifest (manifest_version 0.3), the fields agentty
// uses. A client unpacks the bundle and starts mcp_config's command with
// ${__dirname} the unpacked directory and ${user_config.KEY} what the
// person set (empty when unset: agentty reads an empty AGENTTY_* variable
// as unset, so its defaults hold).
type bundleManifest struct {
	ManifestVersion string                `json:"manifest_version"`
	Name            string                `json:"name"`
	DisplayName     string                `json:"display_name"`
	Version         string                `json:"version"`
	Description     string                `json:"description"`
	Author          bundleAuthor          `json:"author"`
	Repository      npmRepo               `json:"repository"`
	Homepage        string                `json:"homepage"`
	License         string                `json:"license"`
	Keywords        []string              `json:"keywords"`
	Server          bundleServer          `json:"server"`
	ToolsGenerated  bool                  `json:"tools_generated"`
	Compatibility   bundleCompat          `json:"compatibility"`
	UserConfig      map[string]userConfig `json:"user_config"`
}

type bundleAuthor struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

type bundleServer struct {
	Type       string    `json:"type"`
	EntryPoint string    `json:"entry_point"`
	MCPConfig  mcpConfig `json:"mcp_config"`
}

type mcpConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

type bundleCompat struct {
	Platforms []string `json:"platforms"`
}

type userConfig struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

// bundleDir writes the directory mcpb packs for one target: manifest.json,
// server/agentty and the license. One bundle per target: a manifest names
// platforms (darwin, win32, linux) but not CPUs.
func bundleDir(t target, prog entry, dir, version string) error {
	p, _ := t.node()
	entry := "server/" + prog.name
	m := bundleManifest{
		ManifestVersion: "0.3",
		Name:            "agentty",
		DisplayName:     "agentty",
		Version:         version,
		Description:     description,
		Author:          bundleAuthor{"The agentty authors", repoURL},
		Repository:      npmRepo{"git", repoURL},
		Homepage:        repoURL,
		License:         license,
		Keywords:        []string{"terminal", "pty", "repl", "shell", "ssh"},
		Server: bundleServer{Type: "binary", EntryPoint: entry, MCPConfig: mcpConfig{
			Command: "${__dirname}/" + entry,
			Args:    []string{"serve"},
			Env: map[string]string{
				"AGENTTY_DATA_DIR": "${user_config.data_dir}",
				"AGENTTY_CONFIG":   "${user_config.config_file}",
			},
		}},
		ToolsGenerated: true,
		Compatibility:  bundleCompat{Platforms: []string{p}},
		UserConfig: map[string]userConfig{
			"data_dir": {Type: "directory", Title: "Data directory",
				Description: "Where agentty keeps session transcripts (default: ~/.local/state/agentty)."},
			"config_file": {Type: "file", Title: "Configuration file",
				Description: "A TOML file with limits and the command policy in its [policy] section (default: ~/.config/agentty/config.toml)."},
		},
	}
	if err := install(prog.src, filepath.Join(dir, filepath.FromSlash(entry)), 0o755); err != nil {
		return err
	}
	if err := install("LICENSE", filepath.Join(dir, "LICENSE"), 0o644); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "manifest.json"), m)
}
