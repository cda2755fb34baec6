package mcpserver

import (
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/session"
)

// containClient is a client whose server gives sessions cgroups and the
// configured profile p.
func containClient(t *testing.T, p contain.Profile) *client {
	return newClient(t, session.Config{Contain: &session.ContainConfig{Profile: p, Cgroups: true}})
}

func (c *client) info(id string) InfoResult {
	c.t.Helper()
	var r InfoResult
	c.call("get_session_info", map[string]any{"session_id": id}, &r)
	return r
}

// TestContainment_EscapesAreTerminated: processes that left the root's
// tree (setsid, nohup after the root's shell exec'd away, a python daemon)
// are all in the session's cgroup, counted in its usage, and gone with the
// group after terminate_process. Where no cgroup can be made the session
// says process_tree and why, and terminate still ends the tree.
func TestContainment_EscapesAreTerminated(t *testing.T) {
	c := containClient(t, contain.Profile{})
	script := `setsid sleep 300 >/dev/null 2>&1 &
nohup sleep 300 >/dev/null 2>&1 &
python3 -c 'import os,time
r, w = os.pipe()
if os.fork():
    os.close(w); os.read(r, 1); os._exit(0)
os.setsid()
if os.fork(): os._exit(0)
print("daemon", flush=True); os.write(w, b"x"); time.sleep(300)'
echo started; exec sleep 300`
	r := c.start(map[string]any{"command": script, "mode": "pipe", "until": "^started$", "timeout_ms": 20000})
	if !strings.Contains(r.Output, "daemon") || !strings.Contains(r.Output, "started") {
		t.Fatalf("start output %q", r.Output)
	}
	in := c.info(r.SessionID)
	ci := in.Containment
	if ci == nil {
		t.Fatalf("no containment in %+v", in)
	}
	support := c.mgr.ContainSupport()
	if !support.Cgroup {
		if ci.Kind != contain.KindProcessTree || ci.Why != support.CgroupReason || ci.Why == "" {
			t.Fatalf("containment %+v, want process_tree because %q", ci, support.CgroupReason)
		}
	} else {
		// Two sleeps, the daemon and the root (sh, exec'ing sleep): all
		// forked before "started" was printed.
		if ci.Kind != contain.KindCgroup || ci.Usage["processes"] != 4 || ci.Usage["cpu_ms"] <= 0 {
			t.Fatalf("containment %+v usage %+v, want cgroup with 4 processes", ci, ci.Usage)
		}
	}
	var tr InfoResult
	c.call("terminate_process", map[string]any{"session_id": r.SessionID, "force": true}, &tr)
	if tr.State != "exited" || tr.Signal != "SIGKILL" {
		t.Fatalf("terminate: %+v", tr.SessionInfo)
	}
	if support.Cgroup {
		if u := tr.Containment.Usage; u == nil || u["processes"] != 0 {
			t.Fatalf("usage after terminate %+v", u)
		}
		if _, err := os.Stat(ci.Cgroup); !os.IsNotExist(err) {
			t.Fatalf("cgroup %s left after terminate: %v", ci.Cgroup, err)
		}
		if !strings.Contains(text(c.call("get_session_info", map[string]any{"session_id": r.SessionID}, nil)), "containment: cgroup") {
			t.Fatal("get_session_info's text does not say the containment")
		}
	}
}

// TestSandbox_REPLStillAwaitsInput: a python REPL in a sandbox (Landlock
// read-only, no network, rlimits) is still seen waiting at its prompt, and
// the sandbox holds inside it.
func TestSandbox_REPLStillAwaitsInput(t *testing.T) {
	c := containClient(t, contain.Profile{Limits: contain.Limits{AddressSpace: 1 << 30, NoCoreDumps: true}})
	dir := t.TempDir()
	r := c.start(map[string]any{"argv": []string{"python3", "-q"}, "cwd": dir,
		"sandbox": map[string]any{"filesystem": "readonly", "no_network": true}})
	if r.Reason != "awaiting_input" || r.State != "awaiting_input" || r.Output != ">>> " {
		t.Fatalf("start: reason=%s state=%s output=%q", r.Reason, r.State, r.Output)
	}
	steps := []struct{ in, want string }{
		{"open('here', 'w').write('ok')", "2\n>>> "},
		{"open('/etc/agentty-sandbox-test', 'w')", "PermissionError: [Errno 13] Permission denied: '/etc/agentty-sandbox-test'\n>>> "},
		{"import socket; socket.create_connection(('192.0.2.1', 80), timeout=5)", "OSError: [Errno 101] Network is unreachable\n>>> "},
	}
	for _, st := range steps {
		var s SendResult
		c.call("send_input", map[string]any{"session_id": r.SessionID, "text": st.in, "enter": true}, &s)
		if !strings.HasSuffix(s.Output, st.want) || s.Reason != "awaiting_input" {
			t.Fatalf("%s: output=%q reason=%s, want ...%q awaiting_input", st.in, s.Output, s.Reason, st.want)
		}
	}
	if b, err := os.ReadFile(dir + "/here"); err != nil || string(b) != "ok" {
		t.Fatalf("cwd write: %q %v", b, err)
	}
	ci := c.info(r.SessionID).Containment
	if got := strings.Join(ci.Sandbox, ","); got != "landlock:readonly,netns,no_new_privs,rlimits" {
		t.Fatalf("sandbox %q", got)
	}
	if want := map[string]int64{"address_space": 1 << 30, "core_file_size": 0}; !maps.Equal(ci.Limits, want) {
		t.Fatalf("limits %v, want %v", ci.Limits, want)
	}
}

// TestSandbox_RefusedStarts: a start that asks for what the kernel lacks,
// or for less than the configuration, is refused and nothing runs.
func TestSandbox_RefusedStarts(t *testing.T) {
	c := containClient(t, contain.Profile{Limits: contain.Limits{AddressSpace: 1 << 30}})
	support := c.mgr.ContainSupport()
	cases := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"landlock ABI the kernel lacks", map[string]any{"sandbox": map[string]any{"filesystem": "readonly", "landlock_abi": 99}},
			[]string{"landlock is required but unavailable: ", "ABI 99 needed", "nothing was started", "get_policy"}},
		{"looser than configured", map[string]any{"limits": map[string]any{"address_space": 2 << 30}},
			[]string{"may only tighten", "address_space 2147483648 is above the configured 1073741824"}},
		{"relative path", map[string]any{"sandbox": map[string]any{"filesystem": "readonly", "write": []string{"tmp"}}},
			[]string{`sandbox path "tmp" is not absolute`}},
		{"write list without a mode", map[string]any{"sandbox": map[string]any{"write": []string{os.TempDir()}}},
			[]string{"invalid arguments: sandbox paths need a filesystem mode that applies them: write paths restrict nothing without one; ask for \"filesystem\": \"readonly\""}},
		{"read list in readonly", map[string]any{"sandbox": map[string]any{"filesystem": "readonly", "read": []string{"/etc"}}},
			[]string{`read paths restrict nothing in filesystem "readonly"`, `ask for "filesystem": "listed"`}},
		{"empty sandbox", map[string]any{"sandbox": map[string]any{}},
			[]string{`invalid arguments: sandbox {} restricts nothing; ask for "filesystem": "readonly" or "listed", "no_network": true or "no_new_privs": true, or leave sandbox out`}},
	}
	if !support.Cgroup || len(support.Controllers) < 3 {
		// The controller is absent here: asking for its limit is refused
		// with the reason, instead of running unlimited.
		cases = append(cases, struct {
			name string
			args map[string]any
			want []string
		}{"controller absent", map[string]any{"limits": map[string]any{"memory_max": 64 << 20, "pids_max": 10, "cpu_percent": 50}},
			[]string{"controller is required but unavailable"}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"argv": []string{"sh", "-c", "echo ran"}}
			for k, v := range tc.args {
				args[k] = v
			}
			msg := c.toolError("start_process", args)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Fatalf("error %q lacks %q", msg, w)
				}
			}
		})
	}
	var l ListResult
	c.call("list_sessions", map[string]any{}, &l)
	if l.Count != 0 {
		t.Fatalf("refused starts left sessions: %+v", l.Sessions)
	}
}

// TestLimits_EndedBy: a session stopped by a limit says which.
func TestLimits_EndedBy(t *testing.T) {
	c := containClient(t, contain.Profile{})
	cases := []struct {
		name   string
		args   map[string]any
		signal string
		want   string
	}{
		{"cpu", map[string]any{"argv": []string{"python3", "-c", "while True: pass"}, "limits": map[string]any{"cpu_seconds": 1}},
			"SIGXCPU", contain.EndedByCPU},
		{"address space", map[string]any{"argv": []string{"python3", "-c", "a = []\nwhile True: a.append(b'x' * (1 << 20))"},
			"limits": map[string]any{"address_space": 256 << 20}}, "", contain.EndedByMemory},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"mode": "pipe", "return_on": []string{"exit"}, "timeout_ms": 60000}
			for k, v := range tc.args {
				args[k] = v
			}
			r := c.start(args)
			in := c.info(r.SessionID)
			if in.State != "exited" || in.Signal != tc.signal || in.EndedBy != tc.want {
				t.Fatalf("state=%s signal=%q ended_by=%q, want exited %q %q; output %q", in.State, in.Signal, in.EndedBy, tc.signal, tc.want, r.Output)
			}
		})
	}
}

// TestPolicy_ShowsContainment: get_policy shows the configured profile and
// what the kernel offers.
func TestPolicy_ShowsContainment(t *testing.T) {
	c := containClient(t, contain.Profile{Limits: contain.Limits{CPUSeconds: 600},
		Sandbox: contain.Sandbox{Filesystem: contain.FSReadOnly, Write: []string{"/tmp"}}})
	var p PolicyResult
	res := c.call("get_policy", map[string]any{}, &p)
	s := c.mgr.ContainSupport()
	k := p.Containment.Kernel
	if k.LandlockABI != s.LandlockABI || k.Cgroup != s.Cgroup || k.NetNS != s.NetNS || !k.Rlimits {
		t.Fatalf("kernel %+v, want %+v", k, s)
	}
	if p.Containment.Limits["cpu_seconds"] != 600 || len(p.Containment.Limits) != 1 || p.Containment.Sandbox.Filesystem != "readonly" {
		t.Fatalf("profile %+v %+v", p.Containment.Limits, p.Containment.Sandbox)
	}
	if !strings.Contains(text(res), `sandbox: {"filesystem":"readonly","write":["/tmp"]}`) {
		t.Fatalf("text %q", text(res))
	}
}

// TestSandbox_InteractiveShell: an interactive bash in a listed-mode
// sandbox opens its terminal, prompts, runs commands and keeps its job
// control, through open_shell's exact completion.
func TestSandbox_InteractiveShell(t *testing.T) {
	c := containClient(t, contain.Profile{Sandbox: contain.Sandbox{Filesystem: contain.FSListed, NoNetwork: true}})
	var o OpenShellResult
	c.call("open_shell", map[string]any{"shell": "bash", "cwd": t.TempDir()}, &o)
	var e ExecResult
	c.call("exec_command", map[string]any{"session_id": o.SessionID, "command": "echo hi > f && cat f && tty >/dev/null && echo tty-ok; cat ~/.bashrc >/dev/null 2>&1 || echo home-closed"}, &e)
	if e.Output != "hi\ntty-ok\nhome-closed\n" || e.ExitCode == nil || *e.ExitCode != 0 {
		t.Fatalf("exec: %+v", e)
	}
}

// TestSandbox_RunCommandToo: run_command cannot be used to step around the
// configured sandbox and rlimits.
func TestSandbox_RunCommandToo(t *testing.T) {
	c := containClient(t, contain.Profile{Limits: contain.Limits{OpenFiles: 64},
		Sandbox: contain.Sandbox{Filesystem: contain.FSReadOnly}})
	outside := t.TempDir()
	var r RunResult
	c.call("run_command", map[string]any{"argv": []string{"sh", "-c", "ulimit -n; echo x > here && echo cwd-ok; echo x > " + outside + "/f"},
		"cwd": t.TempDir(), "any_exit_code": true}, &r)
	if r.Stdout.Text != "64\ncwd-ok\n" || !strings.Contains(r.Stderr.Text, "Permission denied") || r.ExitCode == nil || *r.ExitCode != 2 {
		t.Fatalf("run: stdout %q stderr %q exit %v", r.Stdout.Text, r.Stderr.Text, r.ExitCode)
	}
}

// TestLimits_CgroupControllers: where the memory and pids controllers are
// enabled for agentty's groups, a memory hog is OOM-killed at memory_max
// (ended_by memory_limit, oom_kills counted) and forks beyond pids_max
// fail; where they are not, asking for them is refused with the reason and
// get_policy says which controllers there are.
func TestLimits_CgroupControllers(t *testing.T) {
	c := containClient(t, contain.Profile{})
	s := c.mgr.ContainSupport()
	var p PolicyResult
	c.call("get_policy", map[string]any{}, &p)
	if !slices.Equal(p.Containment.Kernel.Controllers, nonNil(s.Controllers)) {
		t.Fatalf("get_policy controllers %v, want %v", p.Containment.Kernel.Controllers, s.Controllers)
	}
	hog := map[string]any{"argv": []string{"python3", "-c", "a = []\nwhile True: a.append(b'x' * (1 << 20))"},
		"limits": map[string]any{"memory_max": 64 << 20}, "mode": "pipe", "return_on": []string{"exit"}, "timeout_ms": 60000}
	if !slices.Contains(s.Controllers, "memory") {
		msg := c.toolError("start_process", hog)
		if !strings.Contains(msg, "the cgroup memory controller is required but unavailable") {
			t.Fatalf("memory_max without the controller: %q", msg)
		}
	} else {
		r := c.start(hog)
		in := c.info(r.SessionID)
		if in.Signal != "SIGKILL" || in.EndedBy != contain.EndedByMemory || in.Containment.Usage["oom_kills"] < 1 {
			t.Fatalf("hog: signal %q ended_by %q usage %v", in.Signal, in.EndedBy, in.Containment.Usage)
		}
	}
	forks := map[string]any{"command": "for i in $(seq 20); do sleep 5 & done 2>/dev/null; jobs -p | wc -l",
		"limits": map[string]any{"pids_max": 8}, "mode": "pipe", "return_on": []string{"exit"}, "timeout_ms": 60000}
	if !slices.Contains(s.Controllers, "pids") {
		msg := c.toolError("start_process", forks)
		if !strings.Contains(msg, "the cgroup pids controller is required but unavailable") {
			t.Fatalf("pids_max without the controller: %q", msg)
		}
	} else {
		r := c.start(forks)
		if n, _ := strconv.Atoi(strings.TrimSpace(r.Output)); n >= 8 {
			t.Fatalf("%d background jobs under pids_max 8", n)
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
