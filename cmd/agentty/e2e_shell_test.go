package main

import (
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Over the real binary: a shell runs commands with exact results, and when
// the server is killed with SIGKILL, the shell, its background job and a
// run_command child still running all die with it.
func TestServe_ShellAndRunCommandDieWithServer(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tag := newTag(t)
	var sh struct {
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
	}
	s.call("open_shell", map[string]any{"shell": "bash", "no_rc": true, "env": map[string]string{tagVar: tag}}, &sh)
	type execResult struct {
		Output   string `json:"output"`
		ExitCode *int   `json:"exit_code"`
		Cwd      string `json:"cwd"`
		State    string `json:"state"`
	}
	var r execResult
	s.call("exec_command", map[string]any{"session_id": sh.SessionID, "command": "cd / && printf 'a\\nb\\n' | wc -l"}, &r)
	if r.Output != "2\n" || r.ExitCode == nil || *r.ExitCode != 0 || r.Cwd != "/" || r.State != "done" {
		t.Fatalf("exec: %+v", r)
	}
	s.call("exec_command", map[string]any{"session_id": sh.SessionID, "command": "sleep 1000 & echo started"}, &r)
	if !strings.HasSuffix(r.Output, "started\n") || *r.ExitCode != 0 {
		t.Fatalf("background job: %+v", r)
	}

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Ends with a connection error when the server dies.
		_, _ = s.try("run_command", map[string]any{"argv": []string{"sleep", "1000"}, "env": map[string]string{tagVar: tag}, "timeout_ms": 600000}, nil)
	}()
	waitTagged(t, tag, 3, goneWithin) // bash, its sleep, run_command's sleep
	waitGuard(t, s.cmd.Process.Pid)
	s.killed = true
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.close()
	waitTagged(t, tag, 0, goneWithin)
	wg.Wait()
}
