package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/logbuf"
	"github.com/agentty/agentty/internal/toolcall"
)

// guardArg makes the test binary the guard process, as "agentty __guard"
// does for agentty.
const guardArg = "server-test-guard"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == guardArg {
		os.Exit(RunGuard())
	}
	if len(os.Args) > 1 && os.Args[1] == retainArg {
		os.Exit(runRetainPeak())
	}
	// A -race guard would otherwise pause a second at exit.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}

// memTransport is a front end carrying one in-memory client.
type memTransport struct{ t mcp.Transport }

func (m memTransport) Serve(ctx context.Context, ep Endpoint) error { return ep.MCP.Run(ctx, m.t) }

// testConfig is a server with every part on: store, audit log, guard.
func testConfig(t testing.TB, dataDir string, log *logbuf.Buffer) Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{Version: "test", Logger: slog.New(slog.NewTextHandler(log, nil)),
		Sessions: &SessionConfig{KillGrace: 500 * time.Millisecond},
		Store:    &StoreConfig{Dir: dataDir}, Audit: &AuditConfig{Dir: t.TempDir(), NoSync: true},
		Guard: &GuardConfig{Exe: exe, Args: []string{guardArg}}}
}

// serveMem runs s with one in-memory client and returns the client and
// Serve's result.
func serveMem(t *testing.T, s *Server) (*mcp.ClientSession, <-chan error) {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background(), memTransport{st}) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, served
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := toolcall.Checked(ctx, cs, name, args, out); err != nil {
		t.Fatal(err)
	}
}

// alive reports whether pid is a live process (a zombie is dead).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// goroutines counts this process's goroutines except the runtime's signal
// loop, which the first signal.Notify (the orphan reaper's SIGCHLD) starts
// for the life of the process.
func goroutines() (int, string) {
	buf := make([]byte, 1<<20)
	all := string(buf[:runtime.Stack(buf, true)])
	n := 0
	for _, g := range strings.Split(all, "\n\n") {
		if !strings.Contains(g, "os/signal.loop") {
			n++
		}
	}
	return n, all
}

// waitGoroutines waits until no more goroutines run than before. No event
// announces a goroutine's end, so it is a bounded poll.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		n, all := goroutines()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, n, all)
		}
		time.Sleep(delay) // bounded poll: see above
	}
}

// TestClose_EndsEverything closes a server with a process tree running and
// a wait in flight: the wait ends without the transport timing out, the
// tree and the guard are gone, the store and the audit log recorded the
// exit (they close after the trees), Close is idempotent, nothing leaks.
func TestClose_EndsEverything(t *testing.T) {
	before, _ := goroutines()
	dataDir := t.TempDir()
	var log logbuf.Buffer
	cfg := testConfig(t, dataDir, &log)
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := s.armedGuard()
	if g == nil || !alive(g.PID()) {
		t.Fatalf("no guard running; log:\n%s", log.String())
	}
	guardPID := g.PID()
	cs, served := serveMem(t, s)

	var st struct {
		SessionID string `json:"session_id"`
		PID       int    `json:"pid"`
		Output    string `json:"output"`
	}
	call(t, cs, "start_process", map[string]any{"argv": []string{"sh", "-c", "sleep 600 & echo child=$!; exec sleep 601"},
		"mode": "pipe", "until": `child=\d+`, "timeout_ms": 30000}, &st)
	m := regexp.MustCompile(`child=(\d+)`).FindStringSubmatch(st.Output)
	if m == nil {
		t.Fatalf("start_process output %q lacks the child's pid", st.Output)
	}
	child, _ := strconv.Atoi(m[1])
	if !alive(st.PID) || !alive(child) {
		t.Fatalf("session %d or its child %d is not running", st.PID, child)
	}
	waitEnded := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_output",
			Arguments: map[string]any{"session_id": st.SessionID, "until": "never", "return_on": []string{"match"}, "timeout_ms": 60000}})
		waitEnded <- err
	}()
	// The wait is in flight once the session has a reader; the server
	// tracks no such event for a test to wait on, so it polls list_sessions.
	waitReader(t, cs, st.SessionID)

	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve after Close: %v, want nil", err)
		}
	default:
		t.Error("Close returned before Serve did")
	}
	select {
	case <-waitEnded:
	case <-time.After(30 * time.Second):
		t.Fatal("the wait in flight did not end with Close")
	}
	if strings.Contains(log.String(), "transport did not stop") {
		t.Errorf("Close waited out ShutdownWait: the call in flight was not ended first\n%s", log.String())
	}
	for what, pid := range map[string]int{"session": st.PID, "its child": child, "guard": guardPID} {
		if alive(pid) {
			t.Errorf("%s %d still running after Close", what, pid)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Serve(context.Background(), memTransport{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Serve after Close: %v, want ErrClosed", err)
	}
	cs.Close()
	checkAuditExit(t, cfg.Audit.Dir, st.SessionID)

	// The store was closed after the tree ended, so it recorded the exit:
	// a new server sees the session exited, not lost.
	s2, err := New(Config{Store: &StoreConfig{Dir: dataDir}})
	if err != nil {
		t.Fatal(err)
	}
	cs2, _ := serveMem(t, s2)
	var list struct {
		Sessions []struct {
			ID    string `json:"session_id"`
			State string `json:"state"`
		} `json:"sessions"`
	}
	call(t, cs2, "list_sessions", map[string]any{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != st.SessionID || list.Sessions[0].State != "exited" {
		t.Errorf("after restart: %+v, want %s exited", list.Sessions, st.SessionID)
	}
	cs2.Close()
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	waitGoroutines(t, before)
}

// waitReader polls until the session has a reader waiting.
func waitReader(t *testing.T, cs *mcp.ClientSession, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		var info struct {
			Readers []json.RawMessage `json:"readers"`
		}
		call(t, cs, "get_session_info", map[string]any{"session_id": id}, &info)
		if len(info.Readers) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the read_output wait never started")
		}
		time.Sleep(delay) // bounded poll: see above
	}
}

// checkAuditExit asserts the audit log recorded the session's exit.
func checkAuditExit(t *testing.T, dir, id string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, AuditFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"event":"exit"`) && strings.Contains(sc.Text(), `"session":"`+id+`"`) {
			return
		}
	}
	t.Errorf("the audit log has no exit event for %s: it was closed before the tree ended", id)
}

// TestClose_Concurrent: Close from many goroutines at once, without any
// Serve, returns nil everywhere, and Serve afterwards is refused.
func TestClose_Concurrent(t *testing.T) {
	before, _ := goroutines()
	var log logbuf.Buffer
	s, err := New(testConfig(t, t.TempDir(), &log))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = s.Close() })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Close %d: %v", i, err)
		}
	}
	if err := s.Serve(context.Background(), memTransport{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Serve after Close: %v, want ErrClosed", err)
	}
	waitGoroutines(t, before)
}

// TestClose_RacesServe: a Serve starting while Close runs either is
// refused or is stopped by Close; Close never misses it (it would wait on
// nothing and leave it serving) and nothing hangs. Looped: it is a race.
func TestClose_RacesServe(t *testing.T) {
	before, _ := goroutines()
	for i := range 50 {
		s, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		_, st := mcp.NewInMemoryTransports()
		served := make(chan error, 1)
		go func() { served <- s.Serve(context.Background(), memTransport{st}) }()
		closed := make(chan error, 1)
		go func() { closed <- s.Close() }()
		for _, c := range []chan error{closed, served} {
			select {
			case err := <-c:
				if err != nil && !errors.Is(err, ErrClosed) {
					t.Fatalf("round %d: %v", i, err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("round %d: Close or Serve hangs", i)
			}
		}
	}
	waitGoroutines(t, before)
}

// TestNew_StoreError: a store that cannot be opened is an error matching
// ErrStore that reads as the store's own, and New leaves nothing running.
func TestNew_StoreError(t *testing.T) {
	before, _ := goroutines()
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var log logbuf.Buffer
	_, err := New(testConfig(t, notDir, &log))
	if !errors.Is(err, ErrStore) || strings.HasPrefix(err.Error(), ErrStore.Error()) {
		t.Fatalf("New with a file as the store: %v, want an error matching ErrStore in the store's words", err)
	}
	waitGoroutines(t, before)
}

// TestServe_HTTPStartError: a front end that cannot listen is an error
// matching ErrStart, and the server is still closed cleanly.
func TestServe_HTTPStartError(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Serve(context.Background(), HTTP{Options: HTTPOptions{Addr: "127.0.0.1:notaport"}})
	if !errors.Is(err, ErrStart) {
		t.Fatalf("Serve on a bad address: %v, want ErrStart", err)
	}
}

// TestServe_StdioHangUp: a stdio client that closes its end ends Serve
// with nil, and its sessions live on until Close.
func TestServe_StdioHangUp(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	served := make(chan error, 1)
	go func() {
		served <- s.Serve(context.Background(), Stdio{In: inR, Out: outW})
		outW.Close()
	}()
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo":{"name":"agentty"`) {
		t.Fatalf("initialize over stdio: %q, %v", line, err)
	}
	inW.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve after the client hung up: %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after the client hung up")
	}
}
