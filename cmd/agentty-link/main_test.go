package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/nodebackend"
)

// mainEnv makes the test binary agentty-link itself (see TestMain).
const mainEnv = "AGENTTY_LINK_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// link runs the test binary as agentty-link with args; status, if not
// nil, becomes its fd 3.
func link(t *testing.T, status *os.File, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), mainEnv+"=1"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if status != nil {
		cmd.ExtraFiles = []*os.File{status}
	}
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

func TestLink_Usage(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no target", []string{"-version", "1", "-binary", "/x"}, "usage: agentty-link -version V -binary PATH docker://CONTAINER"},
		{"no binary", []string{"-version", "1", "docker://web"}, "usage: agentty-link"},
		{"bad flag", []string{"-nope"}, "flag provided but not defined: -nope"},
		{"by hand", []string{"-version", "1", "-binary", "/x", "docker://web"}, "fd 3 is not open as a pipe: agentty serve starts this program"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stderr := link(t, nil, nil, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
		})
	}
}

// Started as agentty serve starts it, with no Docker to reach: one error
// record on fd 3 that says so, exit 1.
func TestLink_ErrorRecord(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sock := "unix://" + filepath.Join(t.TempDir(), "none.sock")
	code, stderr := link(t, w, []string{"DOCKER_HOST=" + sock}, "-version", "1", "-binary", "/x", "docker://web")
	w.Close()
	b, _ := io.ReadAll(r)
	var st nodebackend.LinkStatus
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("status %q: %v", b, err)
	}
	if code != 1 || st.Proto != nodebackend.LinkProto || st.Ready || !strings.Contains(st.Error, `docker: inspect container "web"`) || !strings.Contains(st.Error, "is Docker running and DOCKER_HOST right?") {
		t.Fatalf("exit %d, record %+v, stderr %q", code, st, stderr)
	}
}
