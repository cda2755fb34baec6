package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// texter is an output that renders itself compactly for the content block.
type texter interface{ Text() string }

// add registers a typed tool whose handler is protected against panics and
// whose text content is the compact rendering of its output.
//
// It does what the SDK's mcp.AddTool does for a typed handler (validate the
// arguments against the input schema, decode them, marshal the result into
// structuredContent) with two differences that make tools/list small and
// replies cheap: the schema listed is the lean one of wireInput (the full one
// still validates), and the output schema listed is {"type": "object"}, so
// a result is marshalled once and never decoded again to be validated
// against a schema that its own Go type already guarantees. The model
// reads the compact text content; structuredContent carries the result as
// JSON for programs. The full schemas, results included, are in
// docs/tools.md (see docTools).
func add[In, Out any](srv *mcp.Server, log *slog.Logger, tool *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) {
	// Inferred when first needed (a call, the docs), not at start: building
	// and marshalling 24 schemas was a sixth of a cold start.
	full := sync.OnceValue(func() *jsonschema.Schema {
		if s, _ := tool.InputSchema.(*jsonschema.Schema); s != nil {
			return s
		}
		return inputSchema[In]()
	})
	// Resolved on the first call, not at start (TestToolSchemas_Resolve
	// resolves every tool's, so a broken schema still fails the tests).
	resolve := sync.OnceValue(func() *jsonschema.Resolved {
		r, err := full().Resolve(nil)
		if err != nil {
			panic(fmt.Sprintf("input schema of %s: %v", tool.Name, err)) // a programming error
		}
		return r
	})
	out := outputSchema[Out]()
	if tool.OutputSchema != nil {
		out = func() any { return tool.OutputSchema }
	} else if o, ok := ownOutputSchemas[tool.Name]; ok {
		out = o
	}
	wireOf := func() []byte { return marshalWire(tool.Name, full()) }
	docTools.record(tool, full, out, wireOf)
	wire := *tool
	// Marshalled once (the SDK and every tools/list reply copy the bytes),
	// and at build time for the tools agentty has (wire_schemas_gen.go).
	in, built := builtWire[tool.Name]
	if !built {
		in = string(wireOf())
	}
	// See listBuilt: AddTool checks a *jsonschema.Schema's type without
	// decoding it; the listed schemas are set once it returns.
	if built {
		wire.InputSchema = &jsonschema.Schema{Type: "object"}
	} else {
		wire.InputSchema = json.RawMessage(in)
	}
	wire.OutputSchema = &jsonschema.Schema{Type: "object"}
	defer func() {
		wire.InputSchema = json.RawMessage(in)
		wire.OutputSchema = objectSchema // json.RawMessage, {"type":"object"}
	}()
	srv.AddTool(&wire, typed(log, tool.Name, resolve, h))
}

// typed is a tool's handler: it validates and decodes the arguments
// against schema, runs h with panics recovered, words its errors for the
// agent, and renders its result.
func typed[In, Out any](log *slog.Logger, name string, schema func() *jsonschema.Resolved, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		in, verr := decodeArgs[In](req.Params.Arguments, schema())
		if verr != nil {
			res = &mcp.CallToolResult{}
			res.SetError(verr)
			return res, nil
		}
		defer func() {
			if r := recover(); r != nil {
				log.Error("tool panicked", "tool", name, "panic", r, "stack", string(debug.Stack()))
				res = &mcp.CallToolResult{}
				res.SetError(fmt.Errorf("internal error in %s: %v; the server is still running, try again or report this", name, r))
				err = nil
			}
		}()
		o, herr := h(ctx, req, in)
		var ni *needInput
		if errors.As(herr, &ni) {
			return ni.res, nil // the client answers and calls again (see confirm)
		}
		if herr != nil {
			log.Debug("tool error", "tool", name, "err", herr)
			res = &mcp.CallToolResult{}
			res.SetError(agentError(herr))
			return res, nil
		}
		return result(o)
	}
}

// listBuilt: AddTool checks a JSON schema by marshalling and decoding it
// (its type must be "object"), decodes the output schema likewise, and
// decodes the input schema once more for x-mcp-header annotations; the
// SDK's decoder allocates tens of KiB per call, so the 24 tools cost about
// 2.6 MB and 1.3 ms at every start, more in page faults. A built schema was
// checked when it was built (TestWireSchemas_UpToDate also refuses header
// annotations, TestToolsList_Golden holds what is listed), so AddTool is
// given a bare *jsonschema.Schema of type object, which it checks without
// decoding, and add sets the listed schemas on the Tool the server keeps
// once AddTool returns, before any client is served. A schema that is not
// built goes through AddTool's checks.

// ownOutputSchemas are the documented output schemas that are not what
// the SDK would infer from the result's type, built when the docs are.
var ownOutputSchemas = map[string]func() any{
	"read_screen": func() any { return screenOutputSchema() },
}

// objectSchema is the output schema every tool lists: its result is a JSON
// object in structuredContent, whose fields docs/tools.md describes.
var objectSchema = json.RawMessage(`{"type":"object"}`)

// decodeArgs validates a call's arguments against the full input schema and
// decodes them, with the SDK's wording for invalid ones.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved) (In, error) {
	var in In
	m := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &m); err != nil {
			return in, fmt.Errorf("validating \"arguments\": unmarshaling arguments: %v", err)
		}
	}
	if err := schema.Validate(m); err != nil {
		return in, fmt.Errorf("validating \"arguments\": %v", err)
	}
	if len(m) == 0 {
		return in, nil
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, err
	}
	return in, nil
}

// result puts a tool's output in structuredContent, marshalled once, and its
// compact rendering (or, for an output without one, the same JSON) in the
// content block. A long output is sent once (see bulk.go).
func result[Out any](o Out) (*mcp.CallToolResult, error) {
	var text string
	tx, isText := any(o).(texter)
	if isText {
		text = tx.Text()
	}
	var content []mcp.Content
	if m, ok := any(&o).(outputMover); ok && isText {
		if output, moved := m.takeOutput(); moved {
			content = splitText(text, output)
		}
	}
	b, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("marshaling output: %w", err)
	}
	switch {
	case content != nil:
	case isText:
		content = []mcp.Content{&mcp.TextContent{Text: text}}
	default:
		content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
	}
	return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: content}, nil
}
