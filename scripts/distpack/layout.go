package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// layout writes each target's archive into out, and the directories npm
// and mcpb pack (work/npm/NAME, work/mcpb/GOOS_GOARCH) into work.
func layout(ts []target, bin, work, out, version string, mtime time.Time) error {
	if bin == "" || work == "" {
		return fmt.Errorf("-bin and -work are required")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, t := range ts {
		dir := filepath.Join(bin, t.goos+"_"+t.goarch)
		progs := []entry{
			{t.exe("agentty"), filepath.Join(dir, t.exe("agentty"))},
			{t.exe("agentty-link"), filepath.Join(dir, t.exe("agentty-link"))},
		}
		docs := []entry{{"LICENSE", "LICENSE"}, {"README.md", "README.md"}}
		if err := writeArchive(filepath.Join(out, t.archive(version)), append(progs, docs...), mtime); err != nil {
			return fmt.Errorf("%s: archive: %w", t, err)
		}
		if err := npmPlatform(t, progs, filepath.Join(work, "npm", t.goos+"_"+t.goarch), version); err != nil {
			return fmt.Errorf("%s: npm: %w", t, err)
		}
		if err := bundleDir(t, progs[0], filepath.Join(work, "mcpb", t.goos+"_"+t.goarch), version); err != nil {
			return fmt.Errorf("%s: bundle: %w", t, err)
		}
	}
	if err := npmMainPackage(ts, filepath.Join(work, "npm", "main"), version); err != nil {
		return fmt.Errorf("npm: %w", err)
	}
	return nil
}

// writeJSON writes v indented, as the tools that read these files print them.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
