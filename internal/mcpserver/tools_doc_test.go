package mcpserver

// docs/tools.md is generated from the tool registrations: TestToolsList_Golden
// writes what tools/list returns to testdata/tools.json, and
// TestToolsDoc_UpToDate renders that file as markdown. Both with -update:
//
//go:generate go test -count=1 -run ^TestWireSchemas_UpToDate$ -update .
//go:generate go test -count=1 -run ^TestToolsList_Golden$ -update .
//go:generate go test -count=1 -run ^TestToolsDoc_UpToDate$ -update .

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

const toolsDocPath = "../../docs/tools.md"

// TestToolsDoc_UpToDate fails when docs/tools.md is not the rendering of
// testdata/tools.json (which TestToolsList_Golden holds equal to tools/list)
// with each tool's full schemas and notes (docTools, toolNotes), so the tool
// reference cannot drift from what agents are told.
// Refresh with: go generate ./internal/mcpserver
func TestToolsDoc_UpToDate(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err = withFullSchemas(t, b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := renderToolsDoc(b)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(toolsDocPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(toolsDocPath)
	if err != nil {
		t.Fatalf("%v (generate it: go generate ./internal/mcpserver)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./internal/mcpserver and commit the result", toolsDocPath)
	}
}

// TestToolsDoc_Render checks the renderer on a small schema: nesting,
// arrays of objects, maps, tuples, nullable types, bounds and escaping.
func TestToolsDoc_Render(t *testing.T) {
	in := `{"instructions": "Line one.\nLine two.", "tools": [{"name": "x_tool",
	  "description": "Does x | y (ctrl+\\).", "annotations": {"readOnlyHint": true, "idempotentHint": false},
	  "inputSchema": {"type": "object", "required": ["id"], "properties": {
	    "id": {"type": "string", "maxLength": 256, "description": "session id"},
	    "keys": {"type": ["null", "array"], "items": {"type": "string", "maxLength": 32}, "maxItems": 50},
	    "env": {"type": "object", "additionalProperties": {"type": "string"}}}},
	  "outputSchema": {"type": "object", "required": ["rows"], "properties": {
	    "rows": {"type": ["null", "array"], "items": {"type": "object", "required": ["n"], "properties": {
	      "n": {"type": "integer", "description": "row number"},
	      "runs": {"type": "array", "items": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}}}}},
	    "data": true}}}]}`
	got, err := renderToolsDoc([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"> Line one.\n> Line two.\n",
		"| [`x_tool`](#x_tool) | read-only | Does x \\| y (ctrl+\\\\). |\n",
		"## x_tool\n\nDoes x | y (ctrl+\\\\).\n\nRead-only.\n",
		"| `env` | map of string |  |  |\n",
		"| `id` | string (max 256) | yes | session id |\n",
		"| `keys` | array of string (max 50 items, each max 32) |  |  |\n",
		"| `data` | any |  |  |\n",
		"| `rows` | array of object | yes |  |\n",
		"| `rows[].n` | integer | yes | row number |\n",
		"| `rows[].runs` | array of [integer, string] |  |  |\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("rendering lacks %q:\n%s", want, got)
		}
	}
}

// toolsList is testdata/tools.json.
type toolsList struct {
	Instructions string     `json:"instructions"`
	Tools        []docEntry `json:"tools"`
}

type docEntry struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Annotations map[string]any  `json:"annotations"`
	Input       json.RawMessage `json:"inputSchema"`
	Output      json.RawMessage `json:"outputSchema"`
	Notes       string          `json:"notes,omitempty"`
}

// withFullSchemas replaces the lean schemas of a tools.json listing by the
// full ones that add recorded (registering the tools first) and adds each
// tool's notes.
func withFullSchemas(t *testing.T, golden []byte) ([]byte, error) {
	mgr := session.NewManager(session.Config{})
	connect(t, mgr, New(mgr, withEngine(mgr, &Options{Hosts: noHosts{}})), "docs", nil, nil, nil)
	var tl toolsList
	if err := json.Unmarshal(golden, &tl); err != nil {
		return nil, fmt.Errorf("tools.json: %v", err)
	}
	for i, tool := range tl.Tools {
		full, ok := docTools.get(tool.Name)
		if !ok {
			return nil, fmt.Errorf("%s: no full schemas recorded", tool.Name)
		}
		in, err := json.Marshal(full.in())
		if err != nil {
			return nil, err
		}
		out, err := json.Marshal(full.out())
		if err != nil {
			return nil, err
		}
		tl.Tools[i].Input, tl.Tools[i].Output, tl.Tools[i].Notes = in, out, toolNotes[tool.Name]
	}
	return json.Marshal(tl)
}

// docSchema is the part of JSON Schema that the SDK emits for agentty's
// tools. A schema of literal true (any value) decodes as the zero value.
type docSchema struct {
	Type        typeList              `json:"type"`
	Description string                `json:"description"`
	Properties  map[string]*docSchema `json:"properties"`
	Required    []string              `json:"required"`
	Items       *docSchema            `json:"items"`
	PrefixItems []*docSchema          `json:"prefixItems"`
	Additional  *docSchema            `json:"additionalProperties"`
	MaxLength   *int                  `json:"maxLength"`
	MaxItems    *int                  `json:"maxItems"`
	MinItems    *int                  `json:"minItems"`
}

// UnmarshalJSON accepts a boolean schema (true: anything) as well as an object.
func (s *docSchema) UnmarshalJSON(b []byte) error {
	if string(b) == "true" || string(b) == "false" {
		*s = docSchema{}
		return nil
	}
	type plain docSchema
	return json.Unmarshal(b, (*plain)(s))
}

// typeList is a schema's "type": one name or a list of them.
type typeList []string

func (l *typeList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*l = typeList{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(l))
}

// hints are the annotations worth a word, in the order they are shown.
var hints = []struct{ key, word string }{
	{"readOnlyHint", "read-only"},
	{"destructiveHint", "destructive"},
	{"idempotentHint", "idempotent"},
	{"openWorldHint", "open world"},
}

// renderToolsDoc turns tools.json into docs/tools.md.
func renderToolsDoc(golden []byte) ([]byte, error) {
	var tl toolsList
	if err := json.Unmarshal(golden, &tl); err != nil {
		return nil, fmt.Errorf("tools.json: %v", err)
	}
	slices.SortFunc(tl.Tools, func(a, b docEntry) int { return strings.Compare(a.Name, b.Name) })
	var w bytes.Buffer
	w.WriteString("# Tools\n\n" +
		"<!-- Generated by `go generate ./internal/mcpserver` from the tool registrations\n" +
		"     (internal/mcpserver/testdata/tools.json, the golden of tools/list). Do not edit:\n" +
		"     TestToolsDoc_UpToDate fails when this file is stale. -->\n\n" +
		"What an MCP client reads from agentty: the server's instructions, then every\n" +
		"tool's description and hints as `tools/list` returns them, then the longer notes,\n" +
		"parameters and result fields that tools/list leaves out to stay small (it lists\n" +
		"results as plain objects and describes shared parameters once). Waits, cursors\n" +
		"and keys are explained in [processes.md](processes.md).\n\n" +
		"`agentty serve -tools LIST` offers fewer tools: `all` (the default), or groups\n" +
		"and tool names separated by commas. Groups:\n\n")
	groups := slices.Sorted(maps.Keys(toolGroups))
	for _, g := range groups {
		fmt.Fprintf(&w, "- `%s`: %s\n", g, strings.Join(toolGroups[g], ", "))
	}
	w.WriteString("\nA tool not named in a group belongs to `core`.\n\n## Server instructions\n\n")
	for _, l := range strings.Split(strings.TrimRight(tl.Instructions, "\n"), "\n") {
		w.WriteString(strings.TrimRight("> "+l, " ") + "\n")
	}
	w.WriteString("\n## Index\n\n| tool | hints | what it does |\n|---|---|---|\n")
	for _, tool := range tl.Tools {
		first, _, _ := strings.Cut(tool.Description, ". ")
		first = strings.TrimSuffix(first, ".") + "."
		fmt.Fprintf(&w, "| [`%s`](#%s) | %s | %s |\n", tool.Name, tool.Name, strings.Join(toolHints(tool), ", "), cell(first))
	}
	for _, tool := range tl.Tools {
		fmt.Fprintf(&w, "\n## %s\n\n%s\n", tool.Name, mdText(tool.Description))
		if tool.Notes != "" && tool.Notes != tool.Description {
			fmt.Fprintf(&w, "\n%s\n", mdText(tool.Notes))
		}
		if h := toolHints(tool); len(h) > 0 {
			s := strings.Join(h, ", ")
			fmt.Fprintf(&w, "\n%s.\n", strings.ToUpper(s[:1])+s[1:])
		}
		for _, part := range []struct {
			title, required string
			raw             json.RawMessage
		}{{"Parameters", "required", tool.Input}, {"Result", "always", tool.Output}} {
			var s docSchema
			if len(part.raw) > 0 {
				if err := json.Unmarshal(part.raw, &s); err != nil {
					return nil, fmt.Errorf("%s: %s: %v", tool.Name, part.title, err)
				}
			}
			if len(s.Properties) == 0 {
				fmt.Fprintf(&w, "\n%s: none.\n", part.title)
				continue
			}
			fmt.Fprintf(&w, "\n%s:\n\n| name | type | %s | description |\n|---|---|---|---|\n", part.title, part.required)
			writeFields(&w, "", &s)
		}
	}
	return w.Bytes(), nil
}

func toolHints(tool docEntry) []string {
	var out []string
	for _, h := range hints {
		if v, ok := tool.Annotations[h.key].(bool); ok && v {
			out = append(out, h.word)
		}
	}
	return out
}

// writeFields writes one row per property of s, sorted by name, then the
// rows of its nested objects under dotted paths (list[] for array items).
func writeFields(w *bytes.Buffer, prefix string, s *docSchema) {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := s.Properties[n]
		req := ""
		if slices.Contains(s.Required, n) {
			req = "yes"
		}
		fmt.Fprintf(w, "| `%s%s` | %s | %s | %s |\n", prefix, n, typeOf(p), req, cell(p.Description))
		switch {
		case len(p.Properties) > 0:
			writeFields(w, prefix+n+".", p)
		case p.Items != nil && len(p.Items.Properties) > 0:
			writeFields(w, prefix+n+"[].", p.Items)
		}
	}
}

// typeOf names a schema's type for a reader: null is left out (it only
// says the field may be absent), arrays say what they hold, bounds follow.
func typeOf(s *docSchema) string {
	name, bounds := typeParts(s)
	if len(bounds) > 0 {
		name += " (" + strings.Join(bounds, ", ") + ")"
	}
	return name
}

func typeParts(s *docSchema) (name string, bounds []string) {
	var ts []string
	for _, t := range s.Type {
		if t != "null" {
			ts = append(ts, t)
		}
	}
	name = strings.Join(ts, " or ")
	if s.MaxLength != nil {
		bounds = append(bounds, fmt.Sprintf("max %d", *s.MaxLength))
	}
	switch {
	case name == "":
		name = "any"
	case name == "array" && len(s.PrefixItems) > 0:
		var parts []string
		for _, p := range s.PrefixItems {
			parts = append(parts, typeOf(p))
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case name == "array" && s.Items != nil:
		item, each := typeParts(s.Items)
		name = "array of " + item
		if s.MinItems != nil {
			bounds = append(bounds, fmt.Sprintf("min %d items", *s.MinItems))
		}
		if s.MaxItems != nil {
			bounds = append(bounds, fmt.Sprintf("max %d items", *s.MaxItems))
		}
		for _, b := range each {
			bounds = append(bounds, "each "+b)
		}
	case name == "object" && len(s.Properties) == 0 && s.Additional != nil:
		name = "map of " + typeOf(s.Additional)
	}
	return name, bounds
}

// mdText keeps a description's backslashes (ctrl+\\) from being read as
// markdown escapes.
func mdText(s string) string { return strings.ReplaceAll(s, `\`, `\\`) }

// cell makes text safe inside a markdown table row.
func cell(s string) string {
	s = strings.ReplaceAll(mdText(s), "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
