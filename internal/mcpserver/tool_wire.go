package mcpserver

import (
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// What tools/list sends is read into the model's context in every
// conversation, so it says each thing once (TestToolsList_Budget holds it
// under a size budget). Parameters that several tools take from one
// embedded Go type are described in one tool only and listed bare in the
// others, whose description points there; the full schemas, output fields
// and longer notes are in docs/tools.md.

// bareParams lists, per tool, the parameters described in another tool.
var bareParams = map[string][]string{
	"start_process": jsonNames(reflect.TypeFor[WaitParams](), reflect.TypeFor[ReadParams]()), // read_output
	"send_input":    jsonNames(reflect.TypeFor[WaitParams](), reflect.TypeFor[ReadParams]()), // read_output
	"wait_sessions": jsonNames(reflect.TypeFor[WaitParams](), reflect.TypeFor[ReadParams]()), // read_output
	"await_command": jsonNames(reflect.TypeFor[ExecLimits]()),                                // exec_command
	"retry_command": jsonNames(reflect.TypeFor[ExecLimits]()),                                // exec_command
	"open_shell":    jsonNames(reflect.TypeFor[SSHParams]()),                                 // start_process
	"run_command":   jsonNames(reflect.TypeFor[SSHParams]()),                                 // start_process
}

// wireInput is the input schema tools/list shows for tool: full without the
// descriptions of bareParams and of session_id (the instructions say what
// it takes), without additionalProperties: false and maxLength bounds (an
// unknown parameter or an oversized value is refused with a message naming
// it; sane values are far below the bounds), and an optional parameter's type without the
// "null" that a Go pointer adds. Validation uses full, which keeps all.
func wireInput(tool string, full *jsonschema.Schema) *jsonschema.Schema {
	w := *full
	w.AdditionalProperties = nil
	w.Properties = make(map[string]*jsonschema.Schema, len(full.Properties))
	bare := bareParams[tool]
	for name, p := range full.Properties {
		q := *p
		if name == "session_id" || slices.Contains(bare, name) {
			q.Description = ""
		}
		q.MaxLength = nil
		if q.Items != nil && q.Items.MaxLength != nil {
			items := *q.Items
			items.MaxLength = nil
			q.Items = &items
		}
		if len(q.Types) == 2 && slices.Contains(q.Types, "null") {
			q.Type, q.Types = q.Types[slices.IndexFunc(q.Types, func(t string) bool { return t != "null" })], nil
		}
		w.Properties[name] = &q
	}
	return &w
}

// jsonNames returns the JSON names of the fields of structs.
func jsonNames(structs ...reflect.Type) []string {
	var names []string
	for _, t := range structs {
		for f := range t.Fields() {
			if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n != "" && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}
