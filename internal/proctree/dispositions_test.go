//go:build linux

package proctree

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
)

// childDefaultsReport is what childDefaultsChild prints.
type childDefaultsReport struct {
	StartedIgnoring [2]bool `json:"started_ignoring"` // SIGHUP, SIGINT
	ChildSigIgn     uint64  `json:"child_sigign"`     // its child's SigIgn mask
	Survived        bool    `json:"survived"`         // after sending itself both
}

// childDefaultsChild runs in a test binary that sh started with SIGHUP
// and SIGINT ignored: it starts a program (with ChildDefaults first when
// on), reads that program's ignored signals, then sends itself both
// signals, which must still not end it.
func childDefaultsChild(on bool) int {
	r := childDefaultsReport{StartedIgnoring: [2]bool{signal.Ignored(syscall.SIGHUP), signal.Ignored(syscall.SIGINT)}}
	if on {
		ChildDefaults()
	}
	out, err := exec.Command("sh", "-c", "grep '^SigIgn:' /proc/self/status").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f := bytes.Fields(out)
	if len(f) != 2 {
		fmt.Fprintf(os.Stderr, "status line %q\n", out)
		return 1
	}
	if r.ChildSigIgn, err = strconv.ParseUint(string(f[1]), 16, 64); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, s := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if err := syscall.Kill(os.Getpid(), s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	// A signal sent to itself is delivered before kill returns when it is
	// not blocked; reaching this line is surviving both.
	r.Survived = true
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		return 1
	}
	return 0
}

// TestChildDefaults_UndoesInheritedIgnores: started with SIGHUP and
// SIGINT ignored (as under nohup), agentty's children begin with both at
// their default once ChildDefaults ran, and agentty itself stays deaf to
// them; without it the ignores pass on.
func TestChildDefaults_UndoesInheritedIgnores(t *testing.T) {
	const hupINT = 1<<(syscall.SIGHUP-1) | 1<<(syscall.SIGINT-1)
	for _, tc := range []struct {
		mode       string
		wantIgnore uint64 // of the child's SigIgn, the SIGHUP and SIGINT bits
	}{
		{"childdefaults", 0},
		{"childdefaults-off", hupINT},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", `trap "" HUP INT; exec "$0"`, os.Args[0])
			cmd.Env = append(os.Environ(), modeEnv+"="+tc.mode)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.Bytes())
			}
			var r childDefaultsReport
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("%v: %q", err, out)
			}
			if r.StartedIgnoring != [2]bool{true, true} {
				t.Fatalf("the test process started ignoring SIGHUP, SIGINT: %v, want both", r.StartedIgnoring)
			}
			if got := r.ChildSigIgn & hupINT; got != tc.wantIgnore {
				t.Fatalf("child's SigIgn %#x: SIGHUP/SIGINT bits %#x, want %#x", r.ChildSigIgn, got, tc.wantIgnore)
			}
			if !r.Survived {
				t.Fatal("the process did not survive SIGHUP and SIGINT")
			}
		})
	}
}
