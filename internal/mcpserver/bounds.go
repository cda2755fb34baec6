package mcpserver

import (
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// maxLen bounds string arguments whose sane values are short, by property
// name (for a list, each item). The SDK validates arguments against the
// schema, so an oversized value is refused before any handler runs.
// Free text (command, text, content, stdin, argv, env) stays unbounded:
// the line limit of the transport bounds it.
var maxLen = map[string]int{
	// enums and keywords
	"mode": 32, "encoding": 32, "overflow": 32, "stream": 32, "from": 32, "backoff": 32, "keys": 32, "types": 32, "return_on": 32,
	"since": 64,
	// ids, names, hosts
	"session_id": 256, "session_ids": 256, "name": 256, "host": 512,
	// paths (PATH_MAX)
	"path": 4096, "cwd": 4096, "success_file": 4096, "shell": 4096,
	// RE2 regexes
	"until": 4096, "grep": 4096, "pattern": 4096, "success_pattern": 4096, "success_file_pattern": 4096,
}

// inputSchema infers In's schema as the SDK would and adds the maxLength
// bounds of maxLen.
func inputSchema[In any]() *jsonschema.Schema {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("input schema of %T: %v", *new(In), err)) // a programming error, found by every test
	}
	if p := s.Properties["until_listening"]; p != nil {
		p.Type, p.Types = "", []string{"boolean", "integer"}
	}
	for name, p := range s.Properties {
		n, ok := maxLen[name]
		switch {
		case !ok:
		case isType(p, "string"):
			p.MaxLength = &n
		case isType(p, "array") && p.Items != nil && isType(p.Items, "string"):
			p.Items.MaxLength = &n
		}
	}
	return s
}

func isType(s *jsonschema.Schema, typ string) bool {
	return s.Type == typ || slices.Contains(s.Types, typ)
}
