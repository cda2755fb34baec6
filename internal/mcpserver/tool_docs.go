package mcpserver

import (
	"fmt"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// docTools keeps, per tool name, the full schemas add lists only in part,
// for docs/tools.md (TestToolsDoc_UpToDate renders them). Every server
// registers the same tools, so the last registration wins.
var docTools = &toolDocs{m: map[string]docTool{}}

type toolDocs struct {
	mu sync.Mutex
	m  map[string]docTool // guarded by mu
}

type docTool struct {
	in   func() *jsonschema.Schema // the full input schema, inferred once on first use
	out  func() any                // the output schema, inferred when the docs are rendered
	wire func() []byte             // the listed input schema, marshalled now (not the built one)
}

func (d *toolDocs) record(tool *mcp.Tool, in func() *jsonschema.Schema, out func() any, wire func() []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.m[tool.Name] = docTool{in: in, out: out, wire: wire}
}

func (d *toolDocs) get(name string) (docTool, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.m[name]
	return t, ok
}

// names returns the names of every tool registered so far, sorted.
func (d *toolDocs) names() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	names := make([]string, 0, len(d.m))
	for n := range d.m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// outputSchema returns a function inferring Out's schema as the SDK would.
func outputSchema[Out any]() func() any {
	return func() any {
		s, err := jsonschema.For[Out](&jsonschema.ForOptions{})
		if err != nil {
			panic(fmt.Sprintf("output schema of %T: %v", *new(Out), err)) // a programming error, found by the docs test
		}
		return s
	}
}
