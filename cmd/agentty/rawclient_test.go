package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// rawServer is "agentty serve" driven line by line, without an MCP client:
// the tests can send what no client library would (broken JSON, NUL bytes)
// and see every byte of every reply.
type rawServer struct {
	t      testing.TB
	pid    int // the server process
	stdin  io.WriteCloser
	lines  chan string // reply lines, closed at the server's EOF
	stderr *os.File
	nextID int
}

func startRaw(t testing.TB, flags ...string) *rawServer {
	t.Helper()
	cmd := selfCommand(t, append([]string{"serve", "-log-level", "warn"}, flags...)...)
	cmd.Dir = t.TempDir()
	s := &rawServer{t: t, stderr: logFile(t, "serve.log"), lines: make(chan string, 16)}
	cmd.Stderr = s.stderr
	var stdout io.ReadCloser
	s.stdin, stdout = startPiped(t, cmd)
	s.pid = cmd.Process.Pid
	go func() {
		defer close(s.lines)
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			s.lines <- line
		}
	}()
	t.Cleanup(func() {
		s.stdin.Close()
		go func() {
			for range s.lines { // read to stdout's EOF
			}
		}()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server ended with %v after stdin EOF, want exit 0", err)
			}
		case <-time.After(exitWithin):
			_ = cmd.Process.Kill()
			t.Errorf("server still running %v after stdin EOF", exitWithin)
		}
		if log := readFile(t, s.stderr); t.Failed() || strings.Contains(log, "DATA RACE") || strings.Contains(log, "panic:") {
			t.Logf("server stderr:\n%s", log)
		}
	})
	s.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}})
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("server stopped reading its stdin: %v", err)
	}
}

// rawReply is one JSON-RPC reply with its size on the wire.
type rawReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	size int
}

// next returns the next reply, skipping notifications; it fails the test if
// the server ended its output.
func (s *rawServer) next() rawReply {
	s.t.Helper()
	timer := time.NewTimer(callTimeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("the server closed its stdout (it stopped); stderr:\n%s", readFile(s.t, s.stderr))
			}
			var r rawReply
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				s.t.Fatalf("reply is not JSON: %v: %.300s", err, line)
			}
			r.size = len(line)
			if r.ID == nil && r.Error == nil {
				continue // a notification
			}
			return r
		case <-timer.C:
			s.t.Fatalf("no reply within %v", callTimeout)
		}
	}
}

// request sends a call and returns its reply.
func (s *rawServer) request(method string, params any) rawReply {
	s.t.Helper()
	s.nextID++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.nextID, "method": method, "params": params})
	if err != nil {
		s.t.Fatal(err)
	}
	s.send(string(b))
	r := s.next()
	if string(r.ID) != fmt.Sprint(s.nextID) {
		s.t.Fatalf("reply id %s, want %d", r.ID, s.nextID)
	}
	return r
}

// toolResult is the part of a tools/call result the tests read.
type toolResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Structured map[string]any `json:"structuredContent"`
}

// tool calls a tool and returns its result (a tool error is a result too).
func (s *rawServer) tool(name string, args map[string]any) (toolResult, rawReply) {
	s.t.Helper()
	r := s.request("tools/call", map[string]any{"name": name, "arguments": args})
	var tr toolResult
	if r.Error == nil {
		if err := json.Unmarshal(r.Result, &tr); err != nil {
			s.t.Fatalf("%s result: %v", name, err)
		}
	}
	return tr, r
}
