package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// builtWire (wire_schemas_gen.go) holds, per tool, the input schema
// tools/list carries, marshalled at build time: inferring and marshalling
// them from the Go types took about 1.5 ms of every cold start, and a Go
// map of strings costs nothing to load. TestWireSchemas_UpToDate fails when
// a type changed and the file did not (go generate rewrites it), so it never
// lists what the code would not.

// marshalWire marshals the listed form of a tool's full input schema.
func marshalWire(tool string, full *jsonschema.Schema) []byte {
	in, err := json.Marshal(wireInput(tool, full))
	if err != nil {
		panic(fmt.Sprintf("input schema of %s: %v", tool, err))
	}
	return in
}
