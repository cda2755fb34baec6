package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const threePrompts = `read -p "name? " a; read -p "color? " b; read -p "age? " c; echo "got $a/$b/$c"; exit 7`

// TestRunCommand_Interactive drives run_command interactive: true through
// both protocol generations: the person answers three prompts in order in
// one call; declining kills the whole tree; the round cap stops a program
// that keeps asking; a client without elicitation is told what to use.
func TestRunCommand_Interactive(t *testing.T) {
	for _, version := range protocols {
		t.Run("three prompts/"+version, func(t *testing.T) {
			p := &person{answers: map[string]string{"name?": "alice", "color?": "blue", "age?": "42"}}
			h := newPersonHarness(t, version, p.options(), Options{})
			var r RunResult
			h.run("run_command", map[string]any{"argv": []string{"bash", "--norc", "-c", threePrompts}, "interactive": true}, &r)
			if r.ExitCode == nil || *r.ExitCode != 7 || r.Rounds == nil || *r.Rounds != 3 || r.Note != "" || r.SessionID == "" {
				t.Fatalf("result %+v", r)
			}
			if !strings.Contains(r.Stdout.Text, "got alice/blue/42") || r.OK {
				t.Fatalf("output %q ok=%v", r.Stdout.Text, r.OK)
			}
			if len(p.asked) != 3 {
				t.Fatalf("asked %d: %q", len(p.asked), p.asked)
			}
			for i, want := range []string{"name?", "color?", "age?"} {
				if !strings.Contains(p.asked[i], want) {
					t.Fatalf("question %d: %q", i+1, p.asked[i])
				}
				if !strings.Contains(p.asked[i], fmt.Sprintf("question %d of at most 50", i+1)) {
					t.Fatalf("question %d: %q", i+1, p.asked[i])
				}
			}
			// A round shows the output since the last answer, not earlier prompts.
			if _, shown, _ := strings.Cut(p.asked[2], "\n\n"); strings.Contains(shown, "name?") || strings.Contains(shown, "alice") {
				t.Fatalf("round 3 repeats round 1: %q", p.asked[2])
			}
			var info InfoResult
			h.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
			if info.ExitCode == nil || *info.ExitCode != 7 {
				t.Fatalf("transcript session %+v", info.SessionInfo)
			}
		})
		t.Run("pipe/"+version, func(t *testing.T) {
			p := &person{answers: map[string]string{"name? ": "bob", "color? ": "red"}}
			h := newPersonHarness(t, version, p.options(), Options{})
			var r RunResult
			h.run("run_command", map[string]any{"argv": []string{"python3", "-c", "a=input('name? '); b=input('color? '); print(f'got {a}/{b}')"},
				"interactive": true, "mode": "pipe"}, &r)
			if r.ExitCode == nil || *r.ExitCode != 0 || r.Rounds == nil || *r.Rounds != 2 || !strings.Contains(r.Stdout.Text, "got bob/red") {
				t.Fatalf("result %+v", r)
			}
		})
		t.Run("decline kills the tree/"+version, func(t *testing.T) {
			p := &person{answers: map[string]string{"go on?": ""}}
			h := newPersonHarness(t, version, p.options(), Options{})
			var r RunResult
			h.run("run_command", map[string]any{"argv": []string{"bash", "--norc", "-c", `setsid sleep 300 & echo "child=$!"; read -p "go on? " x; echo never`}, "interactive": true}, &r)
			if r.ExitCode != nil || r.Signal != "SIGKILL" || r.Rounds == nil || *r.Rounds != 0 || !strings.Contains(r.Note, `answered "decline" at question 1`) {
				t.Fatalf("result %+v", r)
			}
			m := regexp.MustCompile(`child=(\d+)`).FindStringSubmatch(r.Stdout.Text)
			if m == nil || strings.Contains(r.Stdout.Text, "never") {
				t.Fatalf("output %q", r.Stdout.Text)
			}
			pid, _ := strconv.Atoi(m[1])
			if alive(pid) {
				t.Fatalf("child %d survived the decline", pid)
			}
		})
		t.Run("normal end kills what it left/"+version, func(t *testing.T) {
			p := &person{answers: map[string]string{"name? ": "carol"}}
			h := newPersonHarness(t, version, p.options(), Options{})
			var r RunResult
			h.run("run_command", map[string]any{"argv": []string{"bash", "--norc", "-c",
				`setsid sleep 300 </dev/null >/dev/null 2>&1 & echo "child=$!"; read -p "name? " a; echo "got $a"`}, "interactive": true}, &r)
			if r.ExitCode == nil || *r.ExitCode != 0 || r.Rounds == nil || *r.Rounds != 1 || !strings.Contains(r.Stdout.Text, "got carol") {
				t.Fatalf("result %+v", r)
			}
			m := regexp.MustCompile(`child=(\d+)`).FindStringSubmatch(r.Stdout.Text)
			if m == nil {
				t.Fatalf("output %q", r.Stdout.Text)
			}
			// Plain run_command and start_process's terminate end it; so
			// does the run's normal end, before the result is sent.
			if pid, _ := strconv.Atoi(m[1]); alive(pid) {
				t.Fatalf("child %d survived the run's end", pid)
			}
		})
		t.Run("round cap/"+version, func(t *testing.T) {
			p := &person{answers: map[string]string{"more? ": "x"}}
			h := newPersonHarness(t, version, p.options(), Options{})
			var r RunResult
			h.run("run_command", map[string]any{"argv": []string{"bash", "--norc", "-c", `while read -p "more? " x; do echo "got $x"; done`},
				"interactive": true, "max_rounds": 2}, &r)
			if r.Rounds == nil || *r.Rounds != 2 || len(p.asked) != 2 || !strings.Contains(r.Note, "round cap (2 questions") || r.Signal != "SIGKILL" {
				t.Fatalf("result %+v asked %d", r, len(p.asked))
			}
			if strings.Count(r.Stdout.Text, "got x") != 2 {
				t.Fatalf("output %q", r.Stdout.Text)
			}
		})
		t.Run("configured cap/"+version, func(t *testing.T) {
			p := &person{answers: map[string]string{"more? ": "x"}}
			h := newPersonHarness(t, version, p.options(), Options{MaxRounds: 1})
			var r RunResult
			h.run("run_command", map[string]any{"argv": []string{"bash", "--norc", "-c", `while read -p "more? " x; do :; done`}, "interactive": true}, &r)
			if r.Rounds == nil || *r.Rounds != 1 || !strings.Contains(r.Note, "round cap (1 questions") {
				t.Fatalf("result %+v", r)
			}
		})
		t.Run("no elicitation/"+version, func(t *testing.T) {
			h := newPersonHarness(t, version, nil, Options{})
			msg := h.toolError("run_command", map[string]any{"argv": []string{"bash", "-c", threePrompts}, "interactive": true})
			for _, want := range []string{"supports elicitation, and this one does not", "start_process", "send_input", "agentty attach"} {
				if !strings.Contains(msg, want) {
					t.Fatalf("%q lacks %q", msg, want)
				}
			}
			if len(h.mgr.List()) != 0 {
				t.Fatal("a session started")
			}
		})
	}
	t.Run("forged state starts nothing new", func(t *testing.T) {
		p := &person{answers: map[string]string{"name?": "a", "color?": "b", "age?": "c"}}
		h := newPersonHarness(t, "", p.options(), Options{})
		res, err := h.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{
			"argv": []string{"bash", "--norc", "-c", threePrompts}, "interactive": true},
			InputResponses: mcp.InputResponseMap{"agentty_round_1": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "forged"}}},
			RequestState:   "1.W10.forged"})
		if err != nil || res.IsError {
			t.Fatalf("%v %s", err, text(res))
		}
		var r RunResult
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Stdout.Text, "got a/b/c") || len(h.mgr.List()) != 1 {
			t.Fatalf("forged answer was used: %q", r.Stdout.Text)
		}
	})
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
