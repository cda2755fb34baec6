package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// registrySchema is the MCP Registry's server.json schema, 2025-12-11
// (testdata/registry/README.md says where it comes from).
const registrySchema = "testdata/registry/server.schema.2025-12-11.json"

// TestDist_ServerJSON validates dist/server.json against the registry's
// schema and checks that it names the npm package at this version and
// every bundle with the SHA-256 checksums.txt has for it.
func TestDist_ServerJSON(t *testing.T) {
	b, err := os.ReadFile(registrySchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	rs, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("resolve %s: %v", registrySchema, err)
	}
	validate := func(t *testing.T, doc []byte) error {
		var v any
		if err := json.Unmarshal(doc, &v); err != nil {
			t.Fatal(err)
		}
		return rs.Validate(v)
	}
	dist := distDir(t)
	doc, err := os.ReadFile(filepath.Join(dist, "server.json"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("valid", func(t *testing.T) {
		if err := validate(t, doc); err != nil {
			t.Fatalf("server.json does not validate against %s: %v", registrySchema, err)
		}
	})
	// The schema is applied, not merely loaded: a malformed hash fails.
	t.Run("bad hash refused", func(t *testing.T) {
		bad := strings.Replace(string(doc), `"fileSha256": "`, `"fileSha256": "Z`, 1)
		if bad == string(doc) {
			t.Fatal("server.json has no fileSha256")
		}
		if err := validate(t, []byte(bad)); err == nil || !strings.Contains(err.Error(), "fileSha256") {
			t.Fatalf("a malformed fileSha256 validated (err %v)", err)
		}
	})
	t.Run("packages", func(t *testing.T) {
		s := readDistServer(t, dist)
		sums := readChecksums(t, dist)
		npm, bundles := 0, 0
		for _, p := range s.Packages {
			switch p.RegistryType {
			case "npm":
				npm++
				if p.Identifier != "agentty" || p.Version != s.Version {
					t.Errorf("npm package %s@%s, want agentty@%s", p.Identifier, p.Version, s.Version)
				}
			case "mcpb":
				bundles++
				name := p.Identifier[strings.LastIndex(p.Identifier, "/")+1:]
				want := "https://github.com/agentty/agentty/releases/download/v" + s.Version + "/" + name
				if p.Identifier != want || sums[name] == "" || p.FileSHA256 != sums[name] {
					t.Errorf("bundle %s sha256 %s; want %s with checksums.txt's %q", p.Identifier, p.FileSHA256, want, sums[name])
				}
			default:
				t.Errorf("unexpected package type %q", p.RegistryType)
			}
		}
		m, _ := filepath.Glob(filepath.Join(dist, "*.mcpb"))
		if npm != 1 || bundles != len(m) || bundles == 0 {
			t.Errorf("server.json lists %d npm packages and %d bundles; want 1 and the %d in dist", npm, bundles, len(m))
		}
	})
}
