package bench

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// "agentty bench -verdicts": how often each awaiting-input verdict is
// right, and how soon after a prompt it comes, on programs that prompt
// and on programs that only look idle (a sleep, a slow pipe, a stalled
// network read) or are busy. Everything runs through a real serve; the
// inferred verdict is Linux's with AGENTTY_PORTABLE=verdict, which is
// macOS's decision from the facts macOS has.

// verdictCase is one program of the bench.
type verdictCase struct {
	Name string
	Argv []string
	Env  map[string]string
	// Prompt is the text the program prints before it reads; "" for a
	// program that never reads its input and ends by itself in about 2 s.
	Prompt string
	// State is the state a right verdict at the prompt has.
	State string
}

var verdictCases = []verdictCase{
	{Name: "bash prompt", Argv: []string{"bash", "--norc", "--noprofile", "-i"}, Env: map[string]string{"PS1": "$ "},
		Prompt: "$ ", State: "awaiting_input"},
	{Name: "python input()", Argv: []string{"python3", "-c", "input('name? ')"}, Prompt: "name? ", State: "awaiting_input"},
	{Name: "read -s", Argv: []string{"bash", "-c", "read -s -p 'Password: ' x"}, Prompt: "Password: ", State: "awaiting_password"},
	{Name: "installer prompt, no newline", Argv: []string{"sh", "-c", "printf 'Continue? [Y/n] '; read a"},
		Prompt: "Continue? [Y/n] ", State: "awaiting_input"},
	{Name: "sleep 2", Argv: []string{"sleep", "2"}},
	{Name: "cat on a slow pipe", Argv: []string{"sh", "-c", "(sleep 1; echo a; sleep 1; echo b) | cat"}},
	{Name: "busy loop", Argv: []string{"python3", "-c", "import time\nt = time.time()\nwhile time.time() - t < 2: pass"}},
	// A read from a server that accepted and never answers: a stalled
	// download without the network.
	{Name: "stalled server", Argv: []string{"python3", "-c", "import socket\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\n" +
		"c = socket.create_connection(s.getsockname())\nc.settimeout(2)\ntry:\n    c.recv(1)\nexcept OSError:\n    pass"}},
}

// verdictStrategies are the verdicts compared, with the environment that
// selects each.
var verdictStrategies = []struct{ Name, Env string }{
	{"exact", "AGENTTY_PORTABLE=0"},
	{"inferred", "AGENTTY_PORTABLE=verdict"},
}

// Verdicts is the -verdicts section.
type Verdicts struct {
	N          int          `json:"runs_per_case"`
	LoadBefore float64      `json:"load_before"`
	LoadAfter  float64      `json:"load_after"`
	Rows       []VerdictRow `json:"rows"`
}

// VerdictRow is one case under one verdict.
type VerdictRow struct {
	Case    string `json:"case"`
	Verdict string `json:"verdict"`
	Prompt  bool   `json:"prompt"`
	Runs    int    `json:"runs"`
	// Right: at a prompt, awaiting with the right state; elsewhere, the
	// program ended with no awaiting verdict on the way.
	Right int `json:"right"`
	// FalseAwaiting counts awaiting verdicts for a program that never
	// read; Missed, prompts that got none (or the wrong state) in 10 s.
	FalseAwaiting int `json:"false_awaiting"`
	Missed        int `json:"missed"`
	// Latency is from the prompt being read to the verdict (prompt cases).
	Latency Latency `json:"prompt_to_verdict"`
}

// verdictWait bounds each wait of the bench.
const verdictWait = 10000

// runVerdicts is "agentty bench -verdicts".
func runVerdicts(ctx context.Context, rn *runner, cfg Config) *Results {
	res := &Results{Command: fmt.Sprintf("agentty bench -verdicts -n %d", cfg.N), Env: environment(cfg.Version, rn.exe)}
	v := &Verdicts{N: cfg.N, LoadBefore: loadAverage()}
	res.Verdicts = v
	for _, st := range verdictStrategies {
		fmt.Fprintf(cfg.Progress, "bench: %s verdict...\n", st.Name)
		sr := &runner{exe: rn.exe, version: rn.version, env: append(slices.Clone(rn.env), st.Env)}
		rows, err := sr.verdicts(ctx, st.Name, cfg.N)
		v.Rows = append(v.Rows, rows...)
		if err != nil {
			res.Failed = append(res.Failed, fmt.Sprintf("%s verdict: %v", st.Name, err))
		}
	}
	v.LoadAfter = loadAverage()
	return res
}

// verdicts runs every case n times on one serve.
func (rn *runner) verdicts(ctx context.Context, verdict string, n int) ([]VerdictRow, error) {
	cs, _, err := rn.server(ctx)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var rows []VerdictRow
	for _, c := range verdictCases {
		row := VerdictRow{Case: c.Name, Verdict: verdict, Prompt: c.Prompt != ""}
		if row.Prompt {
			// One at a time: the latency is the point.
			var ds []time.Duration
			for range n {
				d, ok, err := promptRun(ctx, cs, c)
				if err != nil {
					return rows, fmt.Errorf("%s: %w", c.Name, err)
				}
				row.Runs++
				if ok {
					row.Right++
					ds = append(ds, d)
				} else {
					row.Missed++
				}
			}
			row.Latency = summarizeLatency(ds)
		} else {
			// All at once: each takes its 2 s whatever the verdict.
			awaited, err := idleRuns(ctx, cs, c, n)
			if err != nil {
				return rows, fmt.Errorf("%s: %w", c.Name, err)
			}
			row.Runs, row.FalseAwaiting, row.Right = n, awaited, n-awaited
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// start is start_process's arguments for c, with args.
func (c verdictCase) start(args map[string]any) map[string]any {
	args["argv"] = c.Argv
	if c.Env != nil {
		args["env"] = c.Env
	}
	return args
}

type verdictRead struct {
	SessionID   string `json:"session_id"`
	Output      string `json:"output"`
	Reason      string `json:"reason"`
	State       string `json:"state"`
	StateDetail string `json:"state_detail"`
}

// endSession stops and forgets a bench session.
func endSession(ctx context.Context, cs *mcp.ClientSession, id string) {
	_, _ = call(ctx, cs, "terminate_process", map[string]any{"session_id": id, "force": true}, nil)
	_, _ = call(ctx, cs, "delete_session", map[string]any{"session_id": id}, nil)
}

// promptRun starts c, waits for its prompt to be read, then times the
// wait for the verdict. ok is false when none (or a wrong one) came.
func promptRun(ctx context.Context, cs *mcp.ClientSession, c verdictCase) (time.Duration, bool, error) {
	var r verdictRead
	if _, err := call(ctx, cs, "start_process", c.start(map[string]any{"timeout_ms": verdictWait,
		"until": regexp.QuoteMeta(c.Prompt) + `\z`, "return_on": []string{"match", "exit"}}), &r); err != nil {
		return 0, false, err
	}
	defer endSession(ctx, cs, r.SessionID)
	if r.Reason != "matched" {
		return 0, false, fmt.Errorf("no prompt: reason %s, output %q", r.Reason, r.Output)
	}
	t := time.Now()
	var w verdictRead
	if _, err := call(ctx, cs, "read_output", map[string]any{"session_id": r.SessionID, "timeout_ms": verdictWait,
		"return_on": []string{"input", "exit"}}, &w); err != nil {
		return 0, false, err
	}
	d := time.Since(t)
	return d, w.Reason == "awaiting_input" && w.State == c.State, nil
}

// idleRuns starts n copies of c at once and counts those that got an
// awaiting verdict before they ended.
func idleRuns(ctx context.Context, cs *mcp.ClientSession, c verdictCase, n int) (int, error) {
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		awaited int
		first   error
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r verdictRead
			_, err := call(ctx, cs, "start_process", c.start(map[string]any{"timeout_ms": verdictWait,
				"return_on": []string{"input", "exit"}}), &r)
			if r.SessionID != "" {
				defer endSession(ctx, cs, r.SessionID)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				first = cmpErr(first, err)
			case r.Reason == "awaiting_input":
				awaited++
			case r.Reason != "exited":
				first = cmpErr(first, fmt.Errorf("ended with %s (%s), want exited", r.Reason, r.StateDetail))
			}
		}()
	}
	wg.Wait()
	return awaited, first
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}
