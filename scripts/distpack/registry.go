package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// schemaURL is the server.json schema the MCP Registry takes today.
const schemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

type serverJSON struct {
	Schema      string         `json:"$schema"`
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Version     string         `json:"version"`
	WebsiteURL  string         `json:"websiteUrl"`
	Repository  serverRepo     `json:"repository"`
	Packages    []serverPkg    `json:"packages"`
	Meta        map[string]any `json:"_meta"`
}

type serverRepo struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

type serverPkg struct {
	RegistryType     string      `json:"registryType"`
	RegistryBaseURL  string      `json:"registryBaseUrl,omitempty"`
	Identifier       string      `json:"identifier"`
	Version          string      `json:"version,omitempty"`
	FileSHA256       string      `json:"fileSha256,omitempty"`
	Transport        transport   `json:"transport"`
	PackageArguments []serverArg `json:"packageArguments,omitempty"`
}

type transport struct {
	Type string `json:"type"`
}

type serverArg struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// registry writes out/checksums.txt (sha256sum's format, over every
// archive, bundle and npm tarball in out) and then out/server.json, which
// names the npm package and each bundle with its SHA-256 and its release
// download URL.
func registry(ts []target, out, version string) error {
	sums, err := checksums(out)
	if err != nil {
		return err
	}
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(sums)) {
		lines = append(lines, sums[name]+"  "+name+"\n")
	}
	if err := os.WriteFile(filepath.Join(out, "checksums.txt"), []byte(strings.Join(lines, "")), 0o644); err != nil {
		return err
	}
	s := serverJSON{
		Schema: schemaURL, Name: mcpName, Title: "agentty", Description: description,
		Version: version, WebsiteURL: repoURL, Repository: serverRepo{repoURL, "github"},
		Packages: []serverPkg{{
			RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org", Identifier: npmMain,
			Version: version, Transport: transport{"stdio"},
			PackageArguments: []serverArg{{"positional", "serve"}},
		}},
		// The schema has no license field; publisher-provided metadata
		// carries it to registries that show one.
		Meta: map[string]any{"io.modelcontextprotocol.registry/publisher-provided": map[string]any{"license": license}},
	}
	for _, t := range ts {
		name := t.bundle(version)
		sum, ok := sums[name]
		if !ok {
			return fmt.Errorf("%s: no bundle %s in %s", t, name, out)
		}
		s.Packages = append(s.Packages, serverPkg{
			RegistryType: "mcpb",
			Identifier:   repoURL + "/releases/download/v" + version + "/" + name,
			FileSHA256:   sum, Transport: transport{"stdio"},
		})
	}
	return writeJSON(filepath.Join(out, "server.json"), s)
}

// checksums is the SHA-256 of each artifact in out and out/npm, by its
// path relative to out.
func checksums(out string) (map[string]string, error) {
	sums := map[string]string{}
	for _, pat := range []string{"*.tar.gz", "*.zip", "*.mcpb", "npm/*.tgz"} {
		files, err := filepath.Glob(filepath.Join(out, pat))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			h := sha256.New()
			if err := copyFile(h, f); err != nil {
				return nil, err
			}
			rel, _ := filepath.Rel(out, f)
			sums[filepath.ToSlash(rel)] = hex.EncodeToString(h.Sum(nil))
		}
	}
	if len(sums) == 0 {
		return nil, fmt.Errorf("no artifacts in %s", out)
	}
	return sums, nil
}
