package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// escapePy forks, leaves the session (setsid), forks again, clears its
// environment and becomes "sleep $TAG" on /dev/null: nothing of it leads
// back to the session but its ancestry.
const escapePy = `import os
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        tag = os.environ["TAG"]
        os.environ.clear()
        fd = os.open("/dev/null", os.O_RDWR)
        for i in range(3):
            os.dup2(fd, i)
        os.execv("/bin/sleep", ["sleep", tag])
    os._exit(0)
os.wait()
`

// startEscapees starts a bash session that leaves two orphans which keep
// no marker, process group or session of agentty's: one from
// "env -i setsid" in the background of a subshell that exits, one from
// python's fork, setsid, fork and environ.clear(). It returns the session and the two orphans' pids
// once both run.
func startEscapees(t *testing.T, s *server) (id string, pids []int) {
	t.Helper()
	// Durations no other process has: the orphans are found by them.
	tags := []string{fmt.Sprintf("4004.%06d", rand.IntN(1e6)), fmt.Sprintf("4005.%06d", rand.IntN(1e6))}
	script := `(env -i /usr/bin/setsid /bin/sleep ` + tags[0] + ` >/dev/null 2>&1 </dev/null &)
TAG=` + tags[1] + ` python3 -c "$PY"
echo started; exec sleep 1000`
	var r readResult
	s.call("start_process", map[string]any{"argv": []string{"bash", "-c", script}, "env": map[string]string{"PY": escapePy},
		"until": "started", "timeout_ms": 30000}, &r)
	if r.State == "exited" {
		t.Fatalf("the session ended at once: %+v", r)
	}
	for _, tag := range tags {
		pids = append(pids, waitArgv(t, []string{"/bin/sleep", tag}, []string{"sleep", tag}))
	}
	return r.SessionID, pids
}

// waitArgv waits until exactly one live process runs one of the argvs and
// returns its pid. No event announces a grandchild's exec: a bounded poll.
func waitArgv(t *testing.T, argvs ...[]string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		var found []int
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cl, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if err != nil || isZombie(pid) {
				continue
			}
			got := strings.Split(string(bytes.TrimRight(cl, "\x00")), "\x00")
			for _, want := range argvs {
				if strings.Join(got, "\x00") == strings.Join(want, "\x00") {
					found = append(found, pid)
				}
			}
		}
		if len(found) == 1 {
			return found[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("want one process running %q, have %s", argvs, describe(found))
		}
		time.Sleep(delay) // backoff of a bounded poll on /proc
	}
}

// Without cgroups, processes that cleared agentty's marker and left the
// session's process group and session still end with the session: at
// terminate_process, at the server's clean exit and at its SIGKILL.
func TestServe_OrphansEndWithoutCgroups(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		stop func(t *testing.T, s *server, id string)
	}{
		{"terminate_process", func(t *testing.T, s *server, id string) {
			var info infoResult
			s.call("terminate_process", map[string]any{"session_id": id, "grace_ms": 1000}, &info)
			if info.State != "exited" {
				t.Errorf("terminate_process: state %q, want exited", info.State)
			}
		}},
		{"stdin_eof", func(t *testing.T, s *server, _ string) {
			if st := s.close(); st.ExitCode() != 0 {
				t.Errorf("server ended with %v after stdin EOF, want exit 0", st)
			}
		}},
		{"sigkill", func(t *testing.T, s *server, _ string) {
			s.killed = true
			if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			s.close()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, "-cgroups=false")
			id, pids := startEscapees(t, s)
			var info struct {
				Containment struct {
					Kind string `json:"kind"`
				} `json:"containment"`
			}
			s.call("get_session_info", map[string]any{"session_id": id}, &info)
			if info.Containment.Kind != "process_tree" {
				t.Fatalf("containment %q, want process_tree", info.Containment.Kind)
			}
			tc.stop(t, s, id)
			for _, pid := range pids {
				waitGone(t, pid)
			}
		})
	}
}

// Without cgroups, what a run_command run leaves behind ends with the run,
// however it left the tree.
func TestRunCommand_OrphansEndWithoutCgroups(t *testing.T) {
	t.Parallel()
	s := startServer(t, "-cgroups=false")
	tag := fmt.Sprintf("4006.%06d", rand.IntN(1e6))
	var r struct {
		ExitCode *int `json:"exit_code"`
	}
	ready := filepath.Join(t.TempDir(), "ready")
	// The run ends once the orphan runs: it writes its pid to ready just
	// before it becomes sleep.
	s.call("run_command", map[string]any{"argv": []string{"bash", "-c",
		`(env -i /usr/bin/setsid /bin/sh -c 'echo $$ > "$0"; exec /bin/sleep ` + tag + `' "` + ready + `" >/dev/null 2>&1 </dev/null &); ` +
			`while [ ! -s "` + ready + `" ]; do sleep 0.01; done`}}, &r)
	if r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("run ended with %v", r.ExitCode)
	}
	b, err := os.ReadFile(ready)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}
