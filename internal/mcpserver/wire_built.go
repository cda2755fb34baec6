package mcpserver

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// wireSchemasJSON holds, per tool, the input schema tools/list carries,
// marshalled at build time: inferring and marshalling them from the Go
// types took about 1.5 ms of every cold start. TestWireSchemas_UpToDate
// fails when a type changed and this file did not (go generate rewrites
// it), so it never lists what the code would not.
//
//go:embed wire_schemas.json
var wireSchemasJSON []byte

// builtWire is wireSchemasJSON by tool name.
var builtWire = func() map[string][]byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(wireSchemasJSON, &m); err != nil {
		panic(fmt.Sprintf("wire_schemas.json: %v", err)) // a build error, found by every test
	}
	b := make(map[string][]byte, len(m))
	for k, v := range m {
		b[k] = v
	}
	return b
}()

// marshalWire marshals the listed form of a tool's full input schema.
func marshalWire(tool string, full *jsonschema.Schema) []byte {
	in, err := json.Marshal(wireInput(tool, full))
	if err != nil {
		panic(fmt.Sprintf("input schema of %s: %v", tool, err))
	}
	return in
}
