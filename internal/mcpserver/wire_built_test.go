package mcpserver

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

const wireSchemasPath = "wire_schemas.json"

// TestWireSchemas_UpToDate fails when wire_schemas.json, the input schemas
// tools/list carries as built into the binary, is not what the tools' Go
// types give now. Refresh with: go generate ./internal/mcpserver
func TestWireSchemas_UpToDate(t *testing.T) {
	mgr := session.NewManager(session.Config{})
	New(mgr, withEngine(mgr, &Options{Hosts: noHosts{}}))
	var b bytes.Buffer
	b.WriteString("{\n")
	names := docTools.names()
	for i, name := range names {
		d, _ := docTools.get(name)
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  %q: %s%s\n", name, d.wire(), sep)
	}
	b.WriteString("}\n")
	if *update {
		if err := os.WriteFile(wireSchemasPath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(b.Bytes(), wireSchemasJSON) {
		t.Fatalf("%s is not what the tools' types give (run go generate ./internal/mcpserver); want:\n%s", wireSchemasPath, b.Bytes())
	}
	if len(builtWire) != len(names) {
		t.Fatalf("%d built schemas for %d tools", len(builtWire), len(names))
	}
}
