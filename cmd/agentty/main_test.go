package main

// End-to-end tests: the test binary doubles as the agentty binary. With
// e2eEnv set, TestMain runs the real command line instead of the tests, so
// exec'ing os.Executable() gives a real "agentty serve" (and the guard it
// re-execs, and the server "agentty demo" starts, inherit the variable and
// go through the same path).

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/guardstart"
	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/toolcall"
)

// e2eEnv makes the test binary behave as agentty.
const e2eEnv = "AGENTTY_E2E_MAIN"

// standaloneEnv is serve's -standalone flag in the environment.
const standaloneEnv = "AGENTTY_STANDALONE"

func TestMain(m *testing.M) {
	if os.Getenv(e2eEnv) == "1" {
		if v := os.Getenv(versionEnv); v != "" {
			version = v
		}
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	runCleanups()
	os.Exit(code)
}

// callTimeout bounds every tool call so a hung server fails the test instead
// of the whole package timing out.
const callTimeout = 90 * time.Second

// startPiped starts cmd with pipes on its stdin and stdout.
func startPiped(t testing.TB, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}

// selfCommand returns a command running this binary as agentty with args.
func selfCommand(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	// A -race binary sleeps 1 s at exit by default; the server waits for
	// its guard, so every server would cost 2 s.
	race := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	// The transcript store defaults to $XDG_STATE_HOME/agentty and the
	// daemon's socket to $XDG_RUNTIME_DIR/agentty: tests keep both in their
	// own temporary directories, never in the real ones. Tests of other
	// things serve standalone (AGENTTY_STANDALONE is serve's -standalone),
	// so no daemon outlives them; the daemon's tests use daemonCommand.
	state := t.TempDir()
	cmd.Env = append(os.Environ(), e2eEnv+"=1", "GORACE="+race, "XDG_STATE_HOME="+state,
		"XDG_RUNTIME_DIR="+filepath.Join(state, "run"), standaloneEnv+"=1")
	return cmd
}

// logFile creates a file for a child's output. A regular file, not a pipe:
// exec.Cmd.Wait would otherwise also wait for every grandchild (the guard)
// that inherited the pipe.
func logFile(t testing.TB, name string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readFile(t testing.TB, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// server is a real "agentty serve" child with an MCP client connected over
// its stdin/stdout.
type server struct {
	t      testing.TB
	cmd    *exec.Cmd
	cs     *mcp.ClientSession
	stderr *os.File
	frames *frameMeter
	killed bool // the test signalled the server, so a non-zero exit is expected
	closed bool
}

// exitWithin bounds how long a server may take to exit once its stdin is
// closed: terminating sessions takes at most -kill-grace (2 s) plus the
// guard's sweep.
const exitWithin = 30 * time.Second

// startServer launches "agentty serve" with extra flags and connects to it
// as mcp.CommandTransport would, except that the client accepts frames of
// any size: the largest response is measured and checked against the SDK
// default instead, so an oversized one fails the test with its size rather
// than breaking the connection. Cleanup closes the client, which must make
// the server exit 0.
func startServer(t testing.TB, flags ...string) *server {
	t.Helper()
	return startServerWith(t, nil, flags...)
}

// startServerWith is startServer with setup applied to the command first
// (its directory, its environment).
func startServerWith(t testing.TB, setup func(*exec.Cmd), flags ...string) *server {
	t.Helper()
	return startServerClient(t, setup, nil, nil, flags...)
}

// startServerClient is startServerWith with the client's options (its
// elicitation handler) and session options (its protocol version).
func startServerClient(t testing.TB, setup func(*exec.Cmd), co *mcp.ClientOptions, cso *mcp.ClientSessionOptions, flags ...string) *server {
	t.Helper()
	cmd := selfCommand(t, append([]string{"serve", "-log-level", "warn"}, flags...)...)
	if setup != nil {
		setup(cmd)
	}
	s := &server{t: t, cmd: cmd, stderr: logFile(t, "serve.log")}
	cmd.Stderr = s.stderr
	stdin, stdout := startPiped(t, cmd)
	// stdout is closed by cmd.Wait, never by the client: like
	// CommandTransport, the connection ends by closing the server's stdin.
	s.frames = &frameMeter{r: stdout}
	tr := &mcp.IOTransport{Reader: io.NopCloser(s.frames), Writer: stdin, MaxLineLength: -1}
	t.Cleanup(func() {
		st := s.close()
		log := readFile(t, s.stderr)
		if !s.killed && st.ExitCode() != 0 {
			t.Errorf("server ended with %v after stdin EOF, want exit 0", st)
		}
		if strings.Contains(log, "WARNING: DATA RACE") || strings.Contains(log, "panic:") {
			t.Errorf("server reported a data race or panic")
		}
		if n := s.frames.max.Load(); n > mcpserver.MaxReply {
			t.Errorf("a server frame was %d bytes, over the reply cap %d: clients reject it and lose the connection",
				n, mcpserver.MaxReply)
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", log)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, co)
	var err error
	s.cs, err = client.Connect(ctx, tr, cso)
	if err != nil {
		t.Fatalf("connect to agentty serve: %v", err)
	}
	return s
}

// close closes the client (stdin EOF for the server) and waits until the
// server process has exited, killing it after exitWithin; it returns the
// exit state. Later calls return the same state.
func (s *server) close() *os.ProcessState {
	s.t.Helper()
	if s.closed {
		return s.cmd.ProcessState
	}
	s.closed = true
	done := make(chan struct{})
	go func() {
		defer close(done)
		if s.cs != nil {
			_ = s.cs.Close()
		}
		_ = s.cmd.Wait()
	}()
	timer := time.NewTimer(exitWithin)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		s.t.Errorf("server pid %d still running %v after its stdin was closed; killing it", s.cmd.Process.Pid, exitWithin)
		s.killed = true
		_ = s.cmd.Process.Kill()
		<-done
	}
	return s.cmd.ProcessState
}

// frameMeter passes the server's stdout through and records the longest
// newline-delimited frame. Only the client's single reader goroutine calls
// Read; max is read by the test after the connection closed.
type frameMeter struct {
	r   io.Reader
	cur int64
	max atomic.Int64
}

func (m *frameMeter) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	// bytes.IndexByte, not a byte loop: under -race every Go byte access is
	// instrumented, which made this loop the test's main cost.
	for b := p[:n]; ; {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			m.cur += int64(len(b))
			break
		}
		if m.cur += int64(i); m.cur > m.max.Load() {
			m.max.Store(m.cur)
		}
		m.cur, b = 0, b[i+1:]
	}
	return n, err
}

// try calls a tool and decodes its structured result into out (if non-nil
// and the call succeeded).
func (s *server) try(name string, args map[string]any, out any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return toolcall.Call(ctx, s.cs, name, args, out)
}

// call runs a tool that must succeed.
func (s *server) call(name string, args map[string]any, out any) *mcp.CallToolResult {
	s.t.Helper()
	res, err := s.try(name, args, out)
	if err != nil {
		s.t.Fatalf("%s(%v): %v", name, args, err)
	}
	if res.IsError {
		s.t.Fatalf("%s(%v): tool error: %s", name, args, allText(res))
	}
	return res
}

// toolError runs a tool that must fail with an MCP tool error (isError, not
// a protocol error) and returns its text.
func (s *server) toolError(name string, args map[string]any) string {
	s.t.Helper()
	res, err := s.try(name, args, nil)
	if err != nil {
		s.t.Fatalf("%s(%v): protocol error %v, want a tool error", name, args, err)
	}
	if !res.IsError {
		s.t.Fatalf("%s(%v) succeeded, want a tool error: %s", name, args, allText(res))
	}
	return allText(res)
}

var allText = toolcall.Text

// readResult is the subset of read_output's structured result the tests use.
type readResult struct {
	SessionID string `json:"session_id"`
	ReaderID  int    `json:"reader_id"`
	Output    string `json:"output"`
	Reason    string `json:"reason"`
	State     string `json:"state"`
	ExitCode  *int   `json:"exit_code"`
	Signal    string `json:"signal"`
	Cursor    int64  `json:"cursor"`
	Line      int64  `json:"line"`
	HasMore   bool   `json:"has_more"`
	LostBytes int64  `json:"lost_bytes"`
	LostLines int64  `json:"lost_lines"`
	PID       int    `json:"pid"`
	Mode      string `json:"mode"`
}

// infoResult is the subset of get_session_info's (and terminate_process's)
// structured result the tests use.
type infoResult struct {
	ID       string `json:"session_id"`
	PID      int    `json:"pid"`
	State    string `json:"state"`
	ExitCode *int   `json:"exit_code"`
	Signal   string `json:"signal"`
	Bytes    int64  `json:"bytes"`
	Lines    int64  `json:"lines"`
	Retained int64  `json:"retained_bytes"`
	Evicted  int64  `json:"evicted_bytes"`
}

// readAll reads with reader until the session exited and every byte was
// returned, and gives the concatenation.
func (s *server) readAll(id string, reader int, extra map[string]any) string {
	s.t.Helper()
	var b strings.Builder
	deadline := time.Now().Add(180 * time.Second)
	for time.Now().Before(deadline) {
		args := map[string]any{"session_id": id, "reader_id": reader, "timeout_ms": 30000, "settle_ms": 0}
		for k, v := range extra {
			args[k] = v
		}
		var r readResult
		s.call("read_output", args, &r)
		if r.LostBytes != 0 {
			s.t.Fatalf("reader %d of %s lost %d bytes", reader, id, r.LostBytes)
		}
		b.WriteString(r.Output)
		if r.State == "exited" && !r.HasMore && r.Output == "" {
			return b.String()
		}
	}
	s.t.Fatalf("session %s did not finish within 180 s", id)
	return ""
}

// wholeOutput starts a process with args in the largest pages the server
// allows, reads every byte it prints, and fails unless they are want.
func (s *server) wholeOutput(args map[string]any, want string) {
	s.t.Helper()
	page := map[string]any{"overflow": "page", "max_bytes": session.MaxBytesCap}
	for k, v := range page {
		args[k] = v
	}
	var start readResult
	s.call("start_process", args, &start)
	got := start.Output + s.readAll(start.SessionID, 0, page)
	if len(got) != len(want) || sha256.Sum256([]byte(got)) != sha256.Sum256([]byte(want)) {
		s.t.Errorf("read %d bytes sha256 %x, want %d bytes sha256 %x",
			len(got), sha256.Sum256([]byte(got)), len(want), sha256.Sum256([]byte(want)))
	}
}

// newTag returns a random value that marks one test's processes through
// their environment.
func newTag(t testing.TB) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

const tagVar = "E2E_TAG"

// runLeavesNothing runs script with sh -c through run_command, its
// processes tagged, and fails unless it exits 0 with stdout ending in
// "started\n" and leaves no process behind. It returns the stdout.
func runLeavesNothing(t *testing.T, s *server, script string) string {
	t.Helper()
	tag := newTag(t)
	var r struct {
		ExitCode *int `json:"exit_code"`
		Stdout   struct {
			Text string `json:"text"`
		} `json:"stdout"`
	}
	s.call("run_command", map[string]any{"argv": []string{"sh", "-c", script},
		"env": map[string]string{tagVar: tag}, "timeout_ms": 30000}, &r)
	if r.ExitCode == nil || *r.ExitCode != 0 || !strings.HasSuffix(r.Stdout.Text, "started\n") {
		t.Fatalf("run: exit %v stdout %q", r.ExitCode, r.Stdout.Text)
	}
	if left := taggedPIDs(tag); len(left) > 0 {
		t.Fatalf("the run left processes behind: %s", describe(left))
	}
	return r.Stdout.Text
}

// taggedPIDs lists live processes whose environment holds E2E_TAG=tag.
// Zombies are dead: they hold no resources and only wait for a reaper (after
// a server crash that is init, which in a container may never reap).
func taggedPIDs(tag string) []int {
	want := []byte(tagVar + "=" + tag)
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		found := false
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				found = true
				break
			}
		}
		if found && !isZombie(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func isZombie(pid int) bool {
	f, gone := statFields(pid)
	if gone {
		return true
	}
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// statFields returns the fields of /proc/PID/stat after the parenthesised
// command name, which may hold spaces: state, parent pid, and so on. gone
// is true when the process is.
func statFields(pid int) (fields []string, gone bool) {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, true
	}
	i := bytes.LastIndexByte(st, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(st[i+1:])), false
}

// describe renders pids with their command lines for failure messages.
func describe(pids []int) string {
	var parts []string
	for _, pid := range pids {
		cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		parts = append(parts, fmt.Sprintf("%d:%q", pid, strings.TrimRight(string(bytes.ReplaceAll(cl, []byte{0}, []byte{' '})), " ")))
	}
	return strings.Join(parts, ", ")
}

// waitTagged polls /proc until exactly n live processes carry tag. No event
// exists for "a grandchild was forked", so a bounded poll with backoff it is.
func waitTagged(t testing.TB, tag string, n int, within time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(within)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		pids := taggedPIDs(tag)
		if len(pids) == n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("tag %s: want %d live processes within %v, have %d: %s", tag, n, within, len(pids), describe(pids))
		}
		time.Sleep(delay) // backoff of a bounded poll on /proc, not a wait for an event
	}
}

// childrenOf lists the live children of ppid with their argv.
func childrenOf(ppid int) map[int][]string {
	kids := map[int][]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(st, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(st[i+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(ppid) {
			continue
		}
		cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		kids[pid] = strings.Split(strings.TrimRight(string(cl), "\x00"), "\x00")
	}
	return kids
}

// waitGuard waits until the server pid has exactly one child running
// "<binary> __guard" and returns it. The server starts its guard after it
// installed its signal handlers, so a running guard also means a SIGTERM is
// handled from now on.
func waitGuard(t *testing.T, pid int) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		var found []int
		for kid, argv := range childrenOf(pid) {
			if len(argv) == 2 && argv[1] == guardstart.Arg {
				found = append(found, kid)
			}
		}
		if len(found) == 1 {
			return found[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %d has guards %v, want exactly one child running %s", pid, found, guardstart.Arg)
		}
		time.Sleep(delay) // bounded poll on /proc: no event announces the guard
	}
}
