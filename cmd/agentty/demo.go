package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// demo shows agentty working end to end: it launches "agentty serve" as an
// MCP client would, drives a python3 REPL through the tools, and prints
// every call with its result and latency.
func demo(_ []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := connectSelf(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "agentty demo: connect:", err)
		return 1
	}
	defer cs.Close()
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		fmt.Fprintln(stderr, "agentty demo: list tools:", err)
		return 1
	}
	names := make([]string, len(tl.Tools))
	for i, t := range tl.Tools {
		names[i] = t.Name
	}
	fmt.Fprintf(stdout, "connected to agentty serve over stdio; %d tools: %s\n\n", len(names), strings.Join(names, ", "))

	// python3 where there is one (Windows' installer names it python),
	// else the system's own shell.
	prog := []string{"sh", "-i"}
	if runtime.GOOS == "windows" {
		prog = []string{"cmd.exe", "/q"}
	}
	for _, py := range []string{"python3", "python"} {
		if _, err := exec.LookPath(py); err == nil {
			prog = []string{py, "-q"}
			break
		}
	}
	step := func(tool string, args map[string]any) (map[string]any, bool) {
		fmt.Fprintf(stdout, "→ %s %s\n", tool, compact(args))
		t0 := time.Now()
		var out map[string]any
		res, err := call(ctx, cs, tool, args, &out)
		if err != nil {
			fmt.Fprintf(stdout, "✗ %v\n", err)
			return nil, false
		}
		fmt.Fprintf(stdout, "← (%.1f ms)\n%s\n\n", float64(time.Since(t0).Microseconds())/1000, indent(textOf(res)))
		return out, true
	}
	out, ok := step("start_process", map[string]any{"argv": prog, "name": "demo-repl"})
	if !ok {
		return 1
	}
	id := out["session_id"].(string)
	for _, line := range []string{"2 + 2", "import sys; sys.version.split()[0]", "[i*i for i in range(8)]"} {
		switch prog[0] {
		case "sh":
			line = "echo $((6*7))"
		case "cmd.exe":
			line = "set /a 6*7"
		}
		if _, ok := step("send_input", map[string]any{"session_id": id, "text": line, "enter": true}); !ok {
			return 1
		}
	}
	step("get_session_info", map[string]any{"session_id": id})
	step("terminate_process", map[string]any{"session_id": id, "grace_ms": 1000})
	fmt.Fprintln(stdout, "done: every reply above came back in the same call that sent the input, with no sleeps.")
	return 0
}

func compact(m map[string]any) string {
	var parts []string
	for _, k := range []string{"session_id", "command", "argv", "name", "text", "enter", "keys", "grace_ms"} {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%q", k, fmt.Sprint(v)))
		}
	}
	return strings.Join(parts, " ")
}

func indent(s string) string {
	return "   " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n   ")
}
