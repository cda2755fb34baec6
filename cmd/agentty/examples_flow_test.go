package main

// The notation of the example flows in README.md and docs/, parsed so that
// TestDocExamples_Replay can run them. A flow is a fenced block of calls:
//
//	tool {"json": "arguments"}
//	  → field value, other.field value, list[0] value, list[-1] value
//
// A call line starts at column 0 with a tool name and a JSON object. The
// "→" line (continued on following indented lines) lists facts about that
// call's structured result: a field path (dots into objects, [i] into
// arrays, negative from the end) and its value, JSON or a bare word (a
// string), or ~"RE2" for a string that varies (a pid). Objects match when the fields shown match (others are ignored);
// arrays, strings, numbers and booleans match exactly. A call with no "→"
// line must succeed.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// flowStep is one call of a flow and what its result must hold.
type flowStep struct {
	Tool  string
	Args  map[string]any
	Facts []fact
}

// fact is one "path value" item of a "→" line; start and end locate the
// value in the flow's text, so -update can rewrite it in place.
type fact struct {
	Path       string
	Want       any
	Bare       bool
	start, end int
}

var callLine = regexp.MustCompile(`^([a-z][a-z_]*) +(\{.*)$`)

// isFlow reports whether a fenced block's text is a flow (its first line is
// a call).
func isFlow(block string) bool {
	first, _, _ := strings.Cut(block, "\n")
	return callLine.MatchString(first)
}

// parseFlow parses a flow's text.
func parseFlow(text string) ([]flowStep, error) {
	var steps []flowStep
	off := 0
	inFacts := false // the lines after a "→" continue its facts
	for _, line := range strings.SplitAfter(text, "\n") {
		lineStart := off
		off += len(line)
		body := strings.TrimRight(line, "\n")
		if strings.TrimSpace(body) == "" {
			continue
		}
		if m := callLine.FindStringSubmatch(body); m != nil {
			var args map[string]any
			if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
				return nil, fmt.Errorf("%q: arguments: %v", body, err)
			}
			steps = append(steps, flowStep{Tool: m[1], Args: args})
			inFacts = false
			continue
		}
		if len(steps) == 0 || body[0] != ' ' {
			return nil, fmt.Errorf("%q: neither a call nor an indented result line", body)
		}
		i := strings.Index(body, "→")
		switch {
		case i >= 0 && strings.TrimSpace(body[:i]) == "":
			i += len("→")
			inFacts = true
		case inFacts:
			i = 0
		default:
			return nil, fmt.Errorf("%q: a result line starts with →", body)
		}
		facts, err := parseFacts(body[i:], lineStart+i)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", body, err)
		}
		s := &steps[len(steps)-1]
		s.Facts = append(s.Facts, facts...)
	}
	return steps, nil
}

var factPath = regexp.MustCompile(`^[a-z_][a-z_0-9]*(\[-?[0-9]+\])*(\.[a-z_][a-z_0-9]*(\[-?[0-9]+\])*)*`)

// parseFacts parses "path value, path value" (a trailing comma continues
// on the next line); base is s's offset in the flow.
func parseFacts(s string, base int) ([]fact, error) {
	var out []fact
	i := 0
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i == len(s) {
			return out, nil
		}
		p := factPath.FindString(s[i:])
		if p == "" || i+len(p) >= len(s) || s[i+len(p)] != ' ' {
			return nil, fmt.Errorf("at %q: want a field path and a value", s[i:])
		}
		i += len(p)
		for i < len(s) && s[i] == ' ' {
			i++
		}
		f := fact{Path: p, start: base + i}
		if s[i] == '~' {
			dec := json.NewDecoder(strings.NewReader(s[i+1:]))
			var src string
			if err := dec.Decode(&src); err != nil {
				return nil, fmt.Errorf("pattern of %s: %v", p, err)
			}
			re, err := regexp.Compile(src)
			if err != nil {
				return nil, fmt.Errorf("pattern of %s: %v", p, err)
			}
			f.Want = re
			i += 1 + int(dec.InputOffset())
		} else if c := s[i]; strings.ContainsRune(`"[{-0123456789`, rune(c)) || hasWord(s[i:], "true", "false", "null") {
			dec := json.NewDecoder(strings.NewReader(s[i:]))
			dec.UseNumber()
			if err := dec.Decode(&f.Want); err != nil {
				return nil, fmt.Errorf("value of %s: %v", p, err)
			}
			i += int(dec.InputOffset())
		} else {
			j := strings.IndexByte(s[i:], ',')
			if j < 0 {
				j = len(s) - i
			}
			f.Want, f.Bare = strings.TrimSpace(s[i:i+j]), true
			i += len(strings.TrimRight(s[i:i+j], " "))
		}
		f.end = base + i
		out = append(out, f)
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i < len(s) {
			if s[i] != ',' {
				return nil, fmt.Errorf("at %q: want a comma between facts", s[i:])
			}
			i++
		}
	}
}

func hasWord(s string, words ...string) bool {
	for _, w := range words {
		if strings.HasPrefix(s, w) && (len(s) == len(w) || strings.ContainsRune(" ,", rune(s[len(w)]))) {
			return true
		}
	}
	return false
}

// lookup follows a fact's path into a decoded JSON value.
func lookup(v any, path string) (any, error) {
	for _, seg := range strings.Split(path, ".") {
		name, idx, _ := strings.Cut(seg, "[")
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: not an object", name)
		}
		if v, ok = obj[name]; !ok {
			return nil, fmt.Errorf("no field %s", name)
		}
		for idx != "" {
			var n string
			n, idx, _ = strings.Cut(idx, "]")
			idx = strings.TrimPrefix(idx, "[")
			k, _ := strconv.Atoi(n)
			arr, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: not an array", seg)
			}
			if k < 0 {
				k += len(arr)
			}
			if k < 0 || k >= len(arr) {
				return nil, fmt.Errorf("%s: index out of range (%d elements)", seg, len(arr))
			}
			v = arr[k]
		}
	}
	return v, nil
}

// matches compares a wanted value with the actual one: objects by the
// wanted fields only, everything else exactly. Numbers compare as JSON text.
func matches(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			if gv, ok := g[k]; !ok || !matches(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !matches(w[i], g[i]) {
				return false
			}
		}
		return true
	case json.Number:
		return fmt.Sprint(got) == w.String()
	case *regexp.Regexp:
		g, ok := got.(string)
		return ok && w.MatchString(g)
	}
	return want == got
}

// render writes an actual value in the flow's notation, for -update.
func render(v any, bare bool) string {
	if re, ok := v.(*regexp.Regexp); ok {
		return "~" + render(re.String(), false)
	}
	if s, ok := v.(string); ok && bare && s != "" && !strings.ContainsAny(s, ` ,"[]{}`) && !hasWord(s, "true", "false", "null") {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
