package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/mcpserver"
)

// fuzzBudget is how long TestServe_SchemaFuzz calls tools; -short halves it.
const fuzzBudget = 20 * time.Second

// TestServe_SchemaFuzz calls every tool with arguments generated from its
// input schema (from tools/list): valid values, wrong types, oversized and
// escaping-heavy strings, missing and unknown properties, with malformed
// lines in between. The server must answer every call, never with a reply
// over the cap, and stay up. The sequence is fixed by the seed
// (AGENTTY_FUZZ_SEED, default 1); the time budget bounds how far it goes.
//
// Generated strings never contain a space, a slash or a control byte other
// than NUL, and random ones start with '#': a command made of them is a
// shell comment or a program that does not exist, typed into a shell it is
// a comment, and a path stays inside the server's temporary directory.
func TestServe_SchemaFuzz(t *testing.T) {
	t.Parallel()
	seed := uint64(1)
	if v := os.Getenv("AGENTTY_FUZZ_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("AGENTTY_FUZZ_SEED: %v", err)
		}
	}
	budget := fuzzBudget
	if testing.Short() {
		budget /= 2
	}
	s := startRaw(t, "-no-store", "-max-sessions", "16")
	tools := s.listTools()
	g := &fuzzGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	deadline := time.Now().Add(budget)
	calls, errs, malformed, largest := 0, 0, 0, 0
	for time.Now().Before(deadline) {
		if g.r.IntN(10) == 0 {
			s.send(g.malformed())
			if r := s.next(); string(r.ID) != "null" || r.Error == nil {
				t.Fatalf("seed %d: malformed line answered with id %s error %v", seed, r.ID, r.Error)
			}
			malformed++
			continue
		}
		tool := tools[g.r.IntN(len(tools))]
		args := g.object(tool.schema)
		res, r := s.tool(tool.name, args)
		calls++
		largest = max(largest, r.size)
		if r.size > mcpserver.MaxReply {
			t.Fatalf("seed %d: %s reply of %d bytes, over the cap %d; arguments %.500v", seed, tool.name, r.size, mcpserver.MaxReply, args)
		}
		if r.Error != nil || res.IsError {
			errs++
		}
	}
	// Still up, still serving.
	res, _ := s.tool("start_process", map[string]any{"argv": []string{"echo", "still-up"}, "mode": "pipe", "timeout_ms": 30000, "settle_ms": 0})
	if out, _ := res.Structured["output"].(string); res.IsError || out != "still-up\n" {
		t.Fatalf("seed %d: after %d calls the server does not run a program: %+v", seed, calls, res)
	}
	t.Logf("seed %d: %d calls over %d tools (%d errors), %d malformed lines, largest reply %d bytes", seed, calls, len(tools), errs, malformed, largest)
	if calls < len(tools) {
		t.Errorf("only %d calls within %v", calls, budget)
	}
}

type fuzzTool struct {
	name   string
	schema map[string]any
}

// listTools returns the tools with their input schemas, sorted by name.
func (s *rawServer) listTools() []fuzzTool {
	s.t.Helper()
	r := s.request("tools/list", map[string]any{})
	var res struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || len(res.Tools) == 0 {
		s.t.Fatalf("tools/list: %v %.300s", r.Error, r.Result)
	}
	var tools []fuzzTool
	for _, tl := range res.Tools {
		tools = append(tools, fuzzTool{tl.Name, tl.InputSchema})
	}
	return tools
}

// fuzzGen makes values from JSON schemas with a seeded generator.
type fuzzGen struct{ r *rand.Rand }

// words are plausible short values: enum members, keys, session ids,
// harmless programs.
var words = []string{"pty", "pipe", "utf-8", "base64", "head_tail", "tail", "page", "stdout", "stderr", "both",
	"start", "end", "fixed", "linear", "exponential", "2h", "90m", "bash", "sh", "zsh", "input", "output", "event",
	"enter", "ctrl+c", "up", "s1", "s2", "s3", "true", "cat", ".", "x"}

// alphabet has no space, slash or control byte but NUL; it has what needs
// escaping in JSON and in %q.
var alphabet = []rune("abcdefghijklmnopqrstuvwxyz0123456789#.\"\\<>&'()[]{}*+?|^$é\x00\u2028")

func (g *fuzzGen) object(schema map[string]any) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names) // map order would break the seed's determinism
	out := map[string]any{}
	for _, n := range names {
		if g.r.IntN(3) == 0 {
			continue
		}
		p, _ := props[n].(map[string]any)
		out[n] = g.value(n, p, 0)
	}
	if g.r.IntN(20) == 0 {
		out["no_such_"+g.word()] = g.word()
	}
	return out
}

func (g *fuzzGen) value(name string, p map[string]any, depth int) any {
	if g.r.IntN(15) == 0 { // a value of the wrong type
		return []any{g.word(), 1, nil, true, map[string]any{}}[g.r.IntN(5)]
	}
	switch schemaType(p) {
	case "string":
		return g.str(p)
	case "integer", "number":
		return g.int(name)
	case "boolean":
		return g.r.IntN(2) == 0
	case "array":
		items, _ := p["items"].(map[string]any)
		n := g.r.IntN(4)
		a := make([]any, n)
		for i := range a {
			a[i] = g.value(name, items, depth+1)
		}
		return a
	case "object":
		m := map[string]any{}
		for range g.r.IntN(3) {
			m[g.word()] = g.word()
		}
		return m
	}
	return g.word()
}

// schemaType is the schema's type, or its first non-null one.
func schemaType(p map[string]any) string {
	if t, ok := p["type"].(string); ok {
		return t
	}
	ts, _ := p["type"].([]any)
	for _, t := range ts {
		if t != "null" {
			return fmt.Sprint(t)
		}
	}
	return ""
}

func (g *fuzzGen) word() string { return words[g.r.IntN(len(words))] }

func (g *fuzzGen) str(p map[string]any) string {
	limit := 64 << 10
	if m, ok := p["maxLength"].(float64); ok {
		limit = int(m)
	}
	switch g.r.IntN(8) {
	case 0:
		return ""
	case 1, 2, 3:
		return g.word()
	case 4: // just over the bound, or long free text
		return "#" + strings.Repeat(string(alphabet[g.r.IntN(len(alphabet))]), limit)
	case 5: // NUL bytes escape to six bytes each
		return "#" + strings.Repeat("\x00", g.r.IntN(limit+1))
	default:
		n := 1 + g.r.IntN(40)
		var b strings.Builder
		b.WriteByte('#')
		for range n {
			b.WriteRune(alphabet[g.r.IntN(len(alphabet))])
		}
		return b.String()
	}
}

// int keeps waits short (every _ms is at most 200) so the budget buys
// many calls.
func (g *fuzzGen) int(name string) int64 {
	if strings.HasSuffix(name, "_ms") {
		return []int64{-1, 0, 1, 50, 200}[g.r.IntN(5)]
	}
	return []int64{-1, 0, 1, 2, 3, 50, 1000, 1001, 1 << 31, 1 << 53}[g.r.IntN(10)]
}

// malformed is a line that is no JSON-RPC message.
func (g *fuzzGen) malformed() string {
	switch g.r.IntN(4) {
	case 0:
		return strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	case 1:
		return "\x00"
	case 2:
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + g.word()
	default:
		return "{" + g.str(map[string]any{"maxLength": float64(64)})
	}
}
