package main

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// launcher is the main npm package's bin: it runs the binary of the
// platform package npm installed.
//
//go:embed launch.js
var launcher []byte

type npmRepo struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// npmPackage is the package.json fields agentty's packages use.
type npmPackage struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	MCPName              string            `json:"mcpName,omitempty"`
	License              string            `json:"license"`
	Homepage             string            `json:"homepage"`
	Repository           npmRepo           `json:"repository"`
	Keywords             []string          `json:"keywords,omitempty"`
	Bin                  map[string]string `json:"bin,omitempty"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	Libc                 []string          `json:"libc,omitempty"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
	Files                []string          `json:"files"`
	Engines              map[string]string `json:"engines,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
}

func npmBase(name, version, desc string) npmPackage {
	return npmPackage{Name: name, Version: version, Description: desc, License: license,
		Homepage: repoURL, Repository: npmRepo{"git", "git+" + repoURL + ".git"}}
}

// npmPlatform writes the package that carries one target's binaries. npm
// installs it only where os, cpu and (on Linux) libc match; the binary is
// static, so both C libraries are listed.
func npmPlatform(t target, progs []entry, dir, version string) error {
	p, a := t.node()
	pkg := npmBase(t.npmName(), version, fmt.Sprintf("The agentty binaries for %s %s, run by the agentty package", p, a))
	pkg.OS, pkg.CPU, pkg.PreferUnplugged = []string{p}, []string{a}, true
	if t.goos == "linux" {
		pkg.Libc = []string{"glibc", "musl"}
	}
	pkg.Files = []string{"bin/"}
	for _, e := range progs {
		if err := install(e.src, filepath.Join(dir, "bin", e.name), 0o755); err != nil {
			return err
		}
	}
	if err := install("LICENSE", filepath.Join(dir, "LICENSE"), 0o644); err != nil {
		return err
	}
	readme := fmt.Sprintf("# %s\n\nThe agentty binaries for %s %s. Install [agentty](https://www.npmjs.com/package/agentty) instead: it runs them.\n", pkg.Name, p, a)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "package.json"), pkg)
}

// npmMainPackage writes the package people install: launchers for agentty
// and agentty-link, and every platform package as an optional dependency
// at exactly this version. No install script: nothing is downloaded.
func npmMainPackage(ts []target, dir, version string) error {
	pkg := npmBase(npmMain, version, description)
	pkg.MCPName = mcpName
	pkg.Keywords = []string{"mcp", "mcp-server", "terminal", "pty", "repl", "agent"}
	pkg.Bin = map[string]string{"agentty": "bin/agentty.js", "agentty-link": "bin/agentty-link.js"}
	pkg.Files = []string{"bin/", "lib/"}
	pkg.Engines = map[string]string{"node": ">=18"}
	pkg.OptionalDependencies = map[string]string{}
	for _, t := range ts {
		pkg.OptionalDependencies[t.npmName()] = version
	}
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "lib", "launch.js"), launcher, 0o644); err != nil {
		return err
	}
	for _, name := range []string{"agentty", "agentty-link"} {
		js := fmt.Sprintf("#!/usr/bin/env node\n\"use strict\";\nrequire(\"../lib/launch.js\")(%q);\n", name)
		if err := install0755(filepath.Join(dir, "bin", name+".js"), js); err != nil {
			return err
		}
	}
	for _, f := range []string{"LICENSE", "README.md"} {
		if err := install(f, filepath.Join(dir, f), 0o644); err != nil {
			return err
		}
	}
	return writeJSON(filepath.Join(dir, "package.json"), pkg)
}

func install0755(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		return err
	}
	return os.Chmod(path, 0o755)
}
