//go:build linux

package backend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/contain"
)

// runContained runs argv in dir under profile p (no cgroup) and returns
// how it ended, its output and its containment report.
func runContained(t *testing.T, dir string, p contain.Profile, argv ...string) (Exit, string, contain.Report) {
	t.Helper()
	return runKept(t, nil, dir, p, argv...)
}

// runKept is runContained through keeper (nil: none).
func runKept(t *testing.T, keeper []string, dir string, p contain.Profile, argv ...string) (Exit, string, contain.Report) {
	t.Helper()
	path := argv[0]
	if !filepath.IsAbs(path) {
		var err error
		if path, err = lookPath(path); err != nil {
			t.Fatal(err)
		}
	}
	sp := Spec{Path: path, Argv: argv, Dir: dir, Env: os.Environ(), MergeStderr: true,
		Contain: &Contain{Profile: p, NoCgroup: "test"}, Keeper: keeper}
	var c collector
	pr, err := StartPipe(sp, direct, c.sink)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan Exit, 1)
	go func() { ex, _ := pr.Wait(); done <- ex }()
	select {
	case ex := <-done:
		return ex, c.get(1), pr.Containment()
	case <-ctx.Done():
		_ = pr.Terminate(context.Background(), 0)
		t.Fatalf("%v did not end; output %q", argv, c.get(1))
	}
	return Exit{}, "", contain.Report{}
}

// systemPython is a python3 a listed-mode sandbox can run: the system's,
// else the one on PATH with the directories it needs to read.
func systemPython(t *testing.T) (string, []string) {
	if isExec("/usr/bin/python3") {
		return "/usr/bin/python3", nil
	}
	p, err := lookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, []string{filepath.Dir(filepath.Dir(p)), filepath.Dir(filepath.Dir(real))}
}

func lookPath(name string) (string, error) {
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if p := filepath.Join(d, name); isExec(p) {
			return p, nil
		}
	}
	return "", errors.New(name + " not found on PATH")
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// TestContain_Rlimits runs a program into each portable limit and checks
// that it stops there and the session says which limit ended it.
func TestContain_Rlimits(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name    string
		limits  contain.Limits
		argv    []string
		signal  syscall.Signal
		code    int
		output  string
		endedBy string
	}{
		{"address space", contain.Limits{AddressSpace: 256 * mib},
			[]string{"python3", "-c", "a = []\nwhile True: a.append(b'x' * (1 << 20))"},
			0, 1, "MemoryError", contain.EndedByMemory},
		{"cpu seconds", contain.Limits{CPUSeconds: 1},
			[]string{"python3", "-c", "while True: pass"},
			syscall.SIGXCPU, -1, "", contain.EndedByCPU},
		{"file size", contain.Limits{FileSize: 64 * 1024},
			[]string{"dd", "if=/dev/zero", "of=big", "bs=4096", "count=100"},
			syscall.SIGXFSZ, -1, "", contain.EndedByFileSize},
		{"open files", contain.Limits{OpenFiles: 16},
			[]string{"python3", "-c", "fs = [open('/dev/null') for _ in range(64)]"},
			0, 1, "Too many open files", ""},
		{"no core dumps", contain.Limits{NoCoreDumps: true},
			[]string{"sh", "-c", "ulimit -c"},
			0, 0, "0\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ex, out, rep := runContained(t, dir, contain.Profile{Limits: tc.limits}, tc.argv...)
			if ex.Signal != tc.signal || (tc.signal == 0 && ex.Code != tc.code) {
				t.Fatalf("exit %+v, want signal %v code %d; output %q", ex, tc.signal, tc.code, out)
			}
			if !strings.Contains(out, tc.output) {
				t.Fatalf("output %q lacks %q", out, tc.output)
			}
			if rep.EndedBy != tc.endedBy {
				t.Fatalf("ended_by %q, want %q", rep.EndedBy, tc.endedBy)
			}
			if !strings.Contains(strings.Join(rep.Sandbox, ","), "rlimits") {
				t.Fatalf("report %+v does not list rlimits", rep)
			}
			if tc.limits.FileSize > 0 {
				st, err := os.Stat(filepath.Join(dir, "big"))
				if err != nil {
					t.Fatal(err)
				}
				if st.Size() != tc.limits.FileSize {
					t.Fatalf("file is %d bytes, want exactly %d", st.Size(), tc.limits.FileSize)
				}
			}
		})
	}
}

// TestSandbox_Filesystem checks Landlock's rules from inside a sandboxed
// program: the cwd and listed paths are writable, the rest of the system
// is not (EACCES), and in listed mode a directory not listed (a home's
// .ssh) cannot even be read.
func TestSandbox_Filesystem(t *testing.T) {
	home := t.TempDir()
	ssh := filepath.Join(home, ".ssh")
	if err := os.Mkdir(ssh, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ssh, "id_ed25519"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside, extra := t.TempDir(), t.TempDir()
	probe := `
import errno, os, sys
def try_(what, f):
    try:
        f(); print(what, "ok")
    except OSError as e:
        print(what, errno.errorcode[e.errno])
try_("cwd", lambda: open("here", "w").write("x"))
try_("outside", lambda: open(sys.argv[1] + "/f", "w").write("x"))
try_("extra", lambda: open(sys.argv[2] + "/f", "w").write("x"))
try_("ssh", lambda: open(sys.argv[3] + "/id_ed25519").read())
try_("usr", lambda: open("/usr/bin/env", "rb").read(1))
`
	cases := []struct {
		name string
		sb   contain.Sandbox
		want string
	}{
		{"readonly", contain.Sandbox{Filesystem: contain.FSReadOnly, Write: []string{extra}},
			"cwd ok\noutside EACCES\nextra ok\nssh ok\nusr ok\n"},
		{"listed", contain.Sandbox{Filesystem: contain.FSListed, Write: []string{extra}},
			"cwd ok\noutside EACCES\nextra ok\nssh EACCES\nusr ok\n"},
		{"listed with ssh readable", contain.Sandbox{Filesystem: contain.FSListed, Read: []string{ssh}},
			"cwd ok\noutside EACCES\nextra EACCES\nssh ok\nusr ok\n"},
	}
	python, pyRead := systemPython(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sb.Filesystem == contain.FSListed {
				tc.sb.Read = append(tc.sb.Read, pyRead...)
			}
			ex, out, rep := runContained(t, t.TempDir(), contain.Profile{Sandbox: tc.sb},
				python, "-I", "-c", probe, outside, extra, ssh)
			if ex.Code != 0 || out != tc.want {
				t.Fatalf("exit %+v, output:\n%s\nwant:\n%s", ex, out, tc.want)
			}
			if got := strings.Join(rep.Sandbox, ","); got != "landlock:"+tc.sb.Filesystem+",no_new_privs" {
				t.Fatalf("sandbox reported as %q", got)
			}
		})
	}
}

// TestSandbox_NoNetwork: in its own network namespace a program reaches
// loopback but nothing outside.
func TestSandbox_NoNetwork(t *testing.T) {
	probe := `
import socket
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
c = socket.create_connection(srv.getsockname(), timeout=5); print("loopback ok")
try:
    socket.create_connection(("192.0.2.1", 80), timeout=5); print("outside ok")
except OSError as e:
    print("outside", e.errno)
print(sorted(n for _, n in socket.if_nameindex()))
`
	ex, out, rep := runContained(t, t.TempDir(), contain.Profile{Sandbox: contain.Sandbox{NoNetwork: true}},
		"python3", "-I", "-c", probe)
	want := "loopback ok\noutside 101\n['lo']\n" // ENETUNREACH
	if ex.Code != 0 || out != want {
		t.Fatalf("exit %+v, output %q, want %q", ex, out, want)
	}
	if got := strings.Join(rep.Sandbox, ","); got != "netns" {
		t.Fatalf("sandbox reported as %q", got)
	}
}

// TestSandbox_RefusedWhenUnavailable: a profile the kernel cannot give
// (a Landlock ABI from the future) fails the start with the reason, and
// the program never runs.
func TestSandbox_RefusedWhenUnavailable(t *testing.T) {
	dir := t.TempDir()
	sp := Spec{Path: "/bin/sh", Argv: []string{"sh", "-c", "touch ran"}, Dir: dir, Env: os.Environ(),
		Contain: &Contain{Profile: contain.Profile{Sandbox: contain.Sandbox{Filesystem: contain.FSReadOnly, LandlockABI: 99}}}}
	var c collector
	for _, start := range []func(Spec, func(func()), Sink) (Process, error){StartPTY, StartPipe} {
		p, err := start(sp, direct, c.sink)
		var ue *contain.UnavailableError
		if !errors.As(err, &ue) || ue.Feature != "landlock" || !strings.Contains(ue.Reason, "ABI 99 needed") {
			if p != nil {
				p.Close()
			}
			t.Fatalf("start = %v, want landlock unavailable", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "ran")); !os.IsNotExist(err) {
			t.Fatalf("the program ran: %v", err)
		}
	}
}

// TestSandbox_ExecFailure: a program that cannot be executed is the start's
// error, as without a sandbox.
func TestSandbox_ExecFailure(t *testing.T) {
	sp := Spec{Path: "/nonexistent/prog", Argv: []string{"prog"}, Dir: "/", Env: os.Environ(),
		Contain: &Contain{Profile: contain.Profile{Sandbox: contain.Sandbox{NoNewPrivs: true}}}}
	var c collector
	_, err := StartPipe(sp, direct, c.sink)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("start = %v, want not exist", err)
	}
}
