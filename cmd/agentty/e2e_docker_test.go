//go:build linux

package main

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/session"
)

// The same tools with host docker://NAME: a node in a real container of a
// dockerd this test run started (dockerenv_test.go).

func TestDocker_REPLAndPassword(t *testing.T) {
	t.Parallel()
	e := dockerEnv(t)
	name := e.container(t)
	s := e.serve(t)
	host := "docker://" + name
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": host, "argv": []string{"python3", "-q"}}, &r)
	if r.Reason != "awaiting_input" || r.Output != ">>> " || r.Host != host {
		t.Fatalf("start: reason=%s output=%q host=%q detail=%q", r.Reason, r.Output, r.Host, r.StateDetail)
	}
	for i := range 20 {
		var sr mcpserver.SendResult
		s.call("send_input", map[string]any{"session_id": r.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &sr)
		if want := fmt.Sprintf("%d\n>>> ", i*7); sr.Output != want || sr.Reason != "awaiting_input" {
			t.Fatalf("round trip %d: output=%q reason=%s detail=%q, want %q awaiting_input", i, sr.Output, sr.Reason, sr.StateDetail, want)
		}
	}
	var sr mcpserver.SendResult
	s.call("send_input", map[string]any{"session_id": r.SessionID, "text": "import getpass; pw = getpass.getpass('Password: ')", "enter": true}, &sr)
	if sr.State != "awaiting_password" || sr.Output != "Password: " {
		t.Fatalf("getpass: state=%s output=%q", sr.State, sr.Output)
	}
	s.call("send_input", map[string]any{"session_id": r.SessionID, "text": "hunter22", "enter": true}, &sr)
	s.call("send_input", map[string]any{"session_id": r.SessionID, "text": "print(len(pw))", "enter": true}, &sr)
	if sr.Output != "8\n>>> " || strings.Contains(sr.Output, "hunter22") {
		t.Fatalf("after password: %q", sr.Output)
	}
	var hosts mcpserver.HostsResult
	s.call("list_hosts", nil, &hosts)
	if len(hosts.Hosts) != 1 || hosts.Hosts[0].Host != host || hosts.Hosts[0].State != "connected" || !slices.Contains(hosts.Hosts[0].Sessions, r.SessionID) {
		t.Fatalf("list_hosts: %+v", hosts.Hosts)
	}
	s.call("terminate_process", map[string]any{"session_id": r.SessionID}, nil)
	if top := e.top(t, name); len(top) != 2 || !strings.HasPrefix(top[0], "/bin/sleep") || !strings.HasSuffix(top[1], "/agentty node") {
		t.Fatalf("after terminate the container runs %q, want only its sleep and the node (kept for later sessions)", top)
	}
}

func TestDocker_SeqChecksum(t *testing.T) {
	t.Parallel()
	e := dockerEnv(t)
	name := e.container(t)
	s := e.serve(t)
	page := map[string]any{"overflow": "page", "max_bytes": session.MaxBytesCap}
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": "docker://" + name, "argv": []string{"seq", "1", "1000000"}, "mode": "pipe", "timeout_ms": 0,
		"overflow": "page", "max_bytes": session.MaxBytesCap}, &r)
	got := r.Output + s.readAll(r.SessionID, 0, page)
	var want strings.Builder
	for i := 1; i <= 1000000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if sha256.Sum256([]byte(got)) != sha256.Sum256([]byte(want.String())) {
		t.Fatalf("seq output: %d bytes, want %d (tail %q)", len(got), want.Len(), got[max(0, len(got)-30):])
	}
}

func TestDocker_VimScreen(t *testing.T) {
	t.Parallel()
	e := dockerEnv(t)
	name := e.container(t)
	s := e.serve(t)
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": "docker://" + name, "argv": []string{"vim", "-u", "NONE", "-N", "--cmd", "set ttimeoutlen=50", "/root/notes.txt"},
		"rows": 12, "cols": 60}, &r)
	if r.State != "awaiting_input" || !r.TUI {
		t.Fatalf("vim start: state=%s tui=%v detail=%q", r.State, r.TUI, r.StateDetail)
	}
	var sr mcpserver.SendResult
	s.call("send_input", map[string]any{"session_id": r.SessionID, "text": "ihello from the container"}, &sr)
	s.call("send_input", map[string]any{"session_id": r.SessionID, "keys": []string{"escape"}}, &sr)
	var scr mcpserver.ScreenResult
	// vim redraws once it knows the escape starts no key sequence (ttimeoutlen).
	s.call("read_screen", map[string]any{"session_id": r.SessionID, "until": "(?m)^hello from the container$", "timeout_ms": 10000}, &scr)
	if scr.Rows != 12 || scr.Cols != 60 || !scr.AltScreen || len(scr.Lines) == 0 || scr.Lines[0] != "hello from the container" {
		t.Fatalf("screen (%s) %dx%d alt=%v lines=%q", s.readAll(r.SessionID, 0, map[string]any{"timeout_ms": 0}), scr.Rows, scr.Cols, scr.AltScreen, scr.Lines)
	}
	s.call("send_input", map[string]any{"session_id": r.SessionID, "text": ":wq", "enter": true}, &sr)
	// vim may wait for the answers to its terminal queries before it exits.
	s.readAll(r.SessionID, 0, nil)
	var info struct {
		ExitCode *int `json:"exit_code"`
	}
	s.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
	if info.ExitCode == nil || *info.ExitCode != 0 {
		t.Fatalf(":wq: exit code %v", info.ExitCode)
	}
	var run mcpserver.StartResult
	s.call("start_process", map[string]any{"host": "docker://" + name, "argv": []string{"cat", "/root/notes.txt"}, "mode": "pipe"}, &run)
	if run.Output != "hello from the container\n" {
		t.Fatalf("the file vim wrote in the container: %q", run.Output)
	}
}

func TestDocker_ShellExitCodesAndCwd(t *testing.T) {
	t.Parallel()
	e := dockerEnv(t)
	name := e.container(t)
	s := e.serve(t)
	var sh mcpserver.OpenShellResult
	s.call("open_shell", map[string]any{"host": "docker://" + name, "shell": "sh"}, &sh)
	if sh.Cwd != "/root" {
		t.Fatalf("open_shell: cwd %q, want the container's working directory /root", sh.Cwd)
	}
	for _, c := range []struct {
		cmd, out, cwd string
		code          int
	}{
		{"echo hi; uname -s", "hi\nLinux\n", "/root", 0},
		{"mkdir -p /tmp/w && cd /tmp/w", "", "/tmp/w", 0},
		{"false", "", "/tmp/w", 1},
		{"sh -c 'exit 7'", "", "/tmp/w", 7},
	} {
		var ex mcpserver.ExecResult
		s.call("exec_command", map[string]any{"session_id": sh.SessionID, "command": c.cmd}, &ex)
		if ex.Output != c.out || ex.Cwd != c.cwd || ex.ExitCode == nil || *ex.ExitCode != c.code {
			t.Fatalf("%s: output=%q cwd=%q code=%v state=%s, want %q %q %d", c.cmd, ex.Output, ex.Cwd, ex.ExitCode, ex.State, c.out, c.cwd, c.code)
		}
	}
}

// waitTop polls docker top until the container runs only its sleep.
func (e *dockerTestEnv) waitOnlySleep(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		top := e.top(t, name)
		if len(top) == 1 && strings.HasPrefix(top[0], "/bin/sleep") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the container still runs %q", top)
		}
		time.Sleep(50 * time.Millisecond) // docker top is a snapshot: nothing to wait on
	}
}

func TestDocker_KillingAgenttyEndsNode(t *testing.T) {
	t.Parallel()
	e := dockerEnv(t)
	name := e.container(t)
	s := e.serve(t)
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": "docker://" + name, "command": "sleep 73519 & sleep 73520; echo", "mode": "pipe", "timeout_ms": 0}, &r)
	if top := e.top(t, name); len(top) != 5 { // the container's sleep, the node, sh and its two sleeps
		t.Fatalf("container runs %q", top)
	}
	s.killed = true
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
	s.closed = true
	e.waitOnlySleep(t, name)
}

func TestDocker_ContainerStopsMidSession(t *testing.T) {
	t.Parallel()
	e := dockerEnv(t)
	name := e.container(t)
	s := e.serve(t)
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": "docker://" + name, "argv": []string{"python3", "-q"}}, &r)
	if r.State != "awaiting_input" {
		t.Fatalf("start: %s", r.State)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	timeout := 0
	if _, err := e.cli.ContainerStop(ctx, name, client.ContainerStopOptions{Timeout: &timeout}); err != nil {
		t.Fatal(err)
	}
	var rr mcpserver.ReadResult
	s.call("read_output", map[string]any{"session_id": r.SessionID, "timeout_ms": 30000}, &rr)
	want := fmt.Sprintf("container %q stopped (exited, exit code 137)", name)
	if rr.State != "lost" || !strings.Contains(rr.LostReason, want) {
		t.Fatalf("after docker stop: state=%s lost_reason=%q, want lost with %q", rr.State, rr.LostReason, want)
	}
	var hosts mcpserver.HostsResult
	s.call("list_hosts", nil, &hosts)
	if len(hosts.Hosts) != 1 || hosts.Hosts[0].State != "lost" || !strings.Contains(hosts.Hosts[0].LostReason, want) {
		t.Fatalf("list_hosts: %+v", hosts.Hosts)
	}
	msg := s.toolError("start_process", map[string]any{"host": "docker://" + name, "argv": []string{"true"}})
	if want := fmt.Sprintf("container %q is exited: start it (docker start %s) and try again", name, name); !strings.Contains(msg, want) {
		t.Fatalf("start in a stopped container: %q, want %q", msg, want)
	}
	msg = s.toolError("start_process", map[string]any{"host": "docker://no-such-ctr", "argv": []string{"true"}})
	if want := `no container "no-such-ctr": start it first`; !strings.Contains(msg, want) {
		t.Fatalf("start in a missing container: %q, want %q", msg, want)
	}
}

func TestDocker_BinaryCopiedOnce(t *testing.T) {
	t.Parallel()
	e := dockerEnv(t)
	name := e.container(t)
	stat := func() (int64, time.Time) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		top := e.top(t, name)
		var exe string
		for _, c := range top {
			if strings.HasSuffix(c, "/agentty node") {
				exe = strings.TrimSuffix(c, " node")
			}
		}
		if exe == "" {
			t.Fatalf("no node in %q", top)
		}
		st, err := e.cli.ContainerStatPath(ctx, name, client.ContainerStatPathOptions{Path: exe})
		if err != nil {
			t.Fatal(err)
		}
		return st.Stat.Size, st.Stat.Mtime
	}
	var sizes []int64
	var mtimes []time.Time
	for range 2 {
		s := e.serve(t)
		var r mcpserver.StartResult
		s.call("start_process", map[string]any{"host": "docker://" + name, "argv": []string{"true"}, "mode": "pipe"}, &r)
		size, mtime := stat()
		sizes, mtimes = append(sizes, size), append(mtimes, mtime)
		s.close()
		e.waitOnlySleep(t, name)
	}
	fi, err := os.Stat(e.node)
	if err != nil {
		t.Fatal(err)
	}
	if sizes[0] != fi.Size() || sizes[1] != fi.Size() || !mtimes[0].Equal(mtimes[1]) {
		t.Fatalf("copies: sizes %v (binary %d), mtimes %v: the second start must reuse the first copy", sizes, fi.Size(), mtimes)
	}
}

// A container with this agentty on its PATH runs that one: nothing is copied.
func TestDocker_AgenttyOnPathUsed(t *testing.T) {
	t.Parallel()
	e := dockerEnv(t)
	name := e.container(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := os.Open(e.node)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		err := tw.WriteHeader(&tar.Header{Name: "agentty", Mode: 0o755, Size: fi.Size()})
		if err == nil {
			_, err = io.Copy(tw, f)
		}
		if err == nil {
			err = tw.Close()
		}
		pw.CloseWithError(err)
	}()
	if _, err := e.cli.CopyToContainer(ctx, name, client.CopyToContainerOptions{DestinationPath: "/usr/bin", Content: pr}); err != nil {
		t.Fatal(err)
	}
	s := e.serve(t)
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": "docker://" + name, "argv": []string{"true"}, "mode": "pipe"}, &r)
	top := e.top(t, name)
	if !slices.Contains(top, "agentty node") {
		t.Fatalf("container runs %q, want the agentty on its PATH as the node", top)
	}
	var sr mcpserver.StartResult
	s.call("start_process", map[string]any{"host": "docker://" + name, "argv": []string{"ls", "-a", "/tmp"}, "mode": "pipe"}, &sr)
	s.readAll(sr.SessionID, 0, nil)
	var rr mcpserver.ReadResult
	s.call("read_output", map[string]any{"session_id": sr.SessionID, "since_line": 0}, &rr)
	if strings.Contains(rr.Output, ".agentty-") {
		t.Fatalf("a copy was made although agentty is on PATH: /tmp has %q", rr.Output)
	}
}
