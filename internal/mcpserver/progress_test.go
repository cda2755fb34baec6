package mcpserver

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/session"
)

// fakeSource is a ProgressSource the test appends to.
type fakeSource struct {
	mu      sync.Mutex
	end     int64
	line    string
	changed chan struct{}
	closed  bool
}

func newFakeSource() *fakeSource { return &fakeSource{changed: make(chan struct{})} }

func (f *fakeSource) append(line string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.end += int64(len(line) + 1)
	f.line = line
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *fakeSource) closeWrite() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	close(f.changed)
}

func (f *fakeSource) OutputChanged() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}
func (f *fakeSource) OutputEnd() int64 { f.mu.Lock(); defer f.mu.Unlock(); return f.end }
func (f *fakeSource) LastLine() string { f.mu.Lock(); defer f.mu.Unlock(); return f.line }

type note struct {
	at   time.Time
	end  int64
	line string
}

func TestProgressReporter_PacedAndNewest(t *testing.T) {
	src := newFakeSource()
	notes := make(chan note, 1000)
	p := progressReporter{src: src, notify: func(end int64, line string) { notes <- note{time.Now(), end, line} }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.run(ctx, 0) }()

	// A burst far faster than the pace: 500 lines at once.
	start := time.Now()
	for i := range 500 {
		src.append(fmt.Sprintf("line %d", i))
	}
	final := src.OutputEnd()
	var got []note
	deadline := time.After(30 * time.Second)
	for len(got) == 0 || got[len(got)-1].end != final {
		select {
		case n := <-notes:
			got = append(got, n)
		case <-deadline:
			t.Fatalf("the newest output (end %d) was never reported; got %+v", final, got)
		}
	}
	elapsed := time.Since(start)
	if last := got[len(got)-1]; last.line != "line 499" {
		t.Errorf("last notification says %q, want the newest line %q", last.line, "line 499")
	}
	// Paced: the first may go at once, each later one waits ProgressInterval.
	if limit := int(elapsed/ProgressInterval) + 1; len(got) > limit {
		t.Errorf("%d notifications in %v, want at most %d", len(got), elapsed, limit)
	}
	for i := 1; i < len(got); i++ {
		if got[i].end <= got[i-1].end {
			t.Errorf("progress not increasing: %d then %d", got[i-1].end, got[i].end)
		}
		if gap := got[i].at.Sub(got[i-1].at); gap < ProgressInterval-5*time.Millisecond {
			t.Errorf("notifications %v apart, want >= %v", gap, ProgressInterval)
		}
	}

	// End of output: no busy loop, no more notifications, stops on cancel.
	src.closeWrite()
	select {
	case n := <-notes:
		t.Fatalf("notification without new output: %+v", n)
	case <-time.After(2 * ProgressInterval):
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("reporter did not stop on cancel")
	}
}

// progressClient is an in-memory MCP client that records progress.
func progressClient(t *testing.T) (*mcp.ClientSession, *session.Manager, func() []*mcp.ProgressNotificationParams) {
	t.Helper()
	mgr := session.NewManager(session.Config{})
	srv := New(mgr, withEngine(mgr, nil))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	cl := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, r.Params)
			mu.Unlock()
		}})
	cs, err := cl.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait(); mgr.Close() })
	return cs, mgr, func() []*mcp.ProgressNotificationParams {
		mu.Lock()
		defer mu.Unlock()
		return append([]*mcp.ProgressNotificationParams(nil), got...)
	}
}

// A program printing a line every 100 ms for ~2 s: the waiting call reports
// its newest lines while it waits, only when asked to.
func TestProgress_OnWaits(t *testing.T) {
	const script = `for i in $(seq 1 20); do echo "step $i"; sleep 0.1; done; echo finished`
	lineRE := regexp.MustCompile(`^step ([1-9]|1[0-9]|20)$|^finished$`)
	for _, tc := range []struct {
		name  string
		token any
	}{
		{"string token", "tok-1"},
		{"integer token", 42},
		{"no token", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, _, notes := progressClient(t)
			params := &mcp.CallToolParams{Name: "start_process", Arguments: map[string]any{
				"command": script, "mode": "pipe", "until": "^finished$", "settle_ms": 0, "timeout_ms": 30000}}
			if tc.token != nil {
				params.SetProgressToken(tc.token)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			start := time.Now()
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				t.Fatalf("start_process: %v %v", err, res)
			}
			elapsed := time.Since(start)
			got := notes()
			if tc.token == nil {
				if len(got) != 0 {
					t.Fatalf("%d notifications without a progress token", len(got))
				}
				return
			}
			if len(got) < 2 {
				t.Fatalf("%d notifications over a %v wait, want several", len(got), elapsed)
			}
			if limit := int(elapsed/ProgressInterval) + 1; len(got) > limit {
				t.Errorf("%d notifications in %v, want at most %d", len(got), elapsed, limit)
			}
			var last float64
			for _, n := range got {
				if fmt.Sprint(n.ProgressToken) != fmt.Sprint(tc.token) {
					t.Errorf("token %v, want %v", n.ProgressToken, tc.token)
				}
				if !lineRE.MatchString(n.Message) {
					t.Errorf("message %q is not an output line", n.Message)
				}
				if n.Progress <= last {
					t.Errorf("progress %v after %v: not increasing", n.Progress, last)
				}
				last = n.Progress
			}
		})
	}
}

func TestProgress_SendAndRead(t *testing.T) {
	cs, _, notes := progressClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var st StartResult
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "start_process", Arguments: map[string]any{"command": `read x; for i in 1 2 3 4 5 6 7 8; do echo "$x $i"; sleep 0.1; done; echo end`, "mode": "pipe", "timeout_ms": 0}})
	if err != nil || res.IsError {
		t.Fatalf("start: %v %v", err, res)
	}
	st.SessionID = res.StructuredContent.(map[string]any)["session_id"].(string)
	p := &mcp.CallToolParams{Name: "send_input", Arguments: map[string]any{"session_id": st.SessionID, "text": "tick", "enter": true, "until": "^tick 4$", "settle_ms": 0, "timeout_ms": 30000}}
	p.SetProgressToken("send")
	if res, err := cs.CallTool(ctx, p); err != nil || res.IsError {
		t.Fatalf("send_input: %v %v", err, res)
	}
	p = &mcp.CallToolParams{Name: "read_output", Arguments: map[string]any{"session_id": st.SessionID, "until": "^end$", "settle_ms": 0, "timeout_ms": 30000}}
	p.SetProgressToken("read")
	if res, err := cs.CallTool(ctx, p); err != nil || res.IsError {
		t.Fatalf("read_output: %v %v", err, res)
	}
	seen := map[string]int{}
	for _, n := range notes() {
		tok := fmt.Sprint(n.ProgressToken)
		seen[tok]++
		if !regexp.MustCompile(`^tick [1-8]$|^end$`).MatchString(n.Message) {
			t.Errorf("%s: message %q", tok, n.Message)
		}
	}
	if seen["send"] == 0 || seen["read"] == 0 {
		t.Fatalf("notifications per token %v, want some for both send_input and read_output", seen)
	}
}

// exec_command's progress shows only the command's own output lines: never
// the prompt or the typed command.
func TestProgress_ExecCommand(t *testing.T) {
	cs, _, notes := progressClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_shell", Arguments: map[string]any{"shell": "bash", "no_rc": true}})
	if err != nil || res.IsError {
		t.Fatalf("open_shell: %v %v", err, res)
	}
	id := res.StructuredContent.(map[string]any)["session_id"].(string)
	p := &mcp.CallToolParams{Name: "exec_command", Arguments: map[string]any{"session_id": id,
		"command": `for i in 1 2 3 4 5 6 7 8; do echo "line $i"; sleep 0.1; done`, "timeout_ms": 30000}}
	p.SetProgressToken("exec")
	res, err = cs.CallTool(ctx, p)
	if err != nil || res.IsError {
		t.Fatalf("exec_command: %v %v", err, res)
	}
	if out := res.StructuredContent.(map[string]any)["output"]; out != "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n" {
		t.Fatalf("output %q", out)
	}
	got := notes()
	if len(got) == 0 {
		t.Fatal("no progress notifications during an 800 ms exec_command")
	}
	var last float64
	for _, n := range got {
		if !regexp.MustCompile(`^line [1-8]$`).MatchString(n.Message) || fmt.Sprint(n.ProgressToken) != "exec" {
			t.Errorf("notification %q token %v, want a command output line for token exec", n.Message, n.ProgressToken)
		}
		if n.Progress <= last {
			t.Errorf("progress %v after %v: not increasing", n.Progress, last)
		}
		last = n.Progress
	}
}
