//go:build unix

package session

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"syscall"
	"testing"

	"github.com/agentty/agentty/internal/record"
)

// fdChildEnv makes TestStartError_TooManyOpenFilesChild run; the parent
// starts it as its own process so the low descriptor limit binds only it.
const fdChildEnv = "AGENTTY_TEST_SESSION_FD_CHILD"

// Running out of descriptors is reported as that, with the counts and
// what to do, never as "command not found".
func TestStartError_TooManyOpenFiles(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartError_TooManyOpenFilesChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), fdChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^--- PASS: TestStartError_TooManyOpenFilesChild`).Match(out) {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestStartError_TooManyOpenFilesChild(t *testing.T) {
	if os.Getenv(fdChildEnv) == "" {
		return // runs only as the child of TestStartError_TooManyOpenFiles (not a skip: nothing is left out)
	}
	const limit = 64
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Fatal(err)
	}
	m := NewManager(Config{})
	defer m.Close()
	var held []*os.File
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			if !errors.Is(err, syscall.EMFILE) {
				t.Fatal(err)
			}
			break
		}
		held = append(held, f)
	}
	for _, mode := range []record.Mode{record.ModePipe, record.ModePTY} {
		_, err := m.Start(StartOptions{Argv: []string{"true"}, Mode: mode})
		if !errors.Is(err, ErrTooManyFiles) || errors.Is(err, ErrCommandNotFound) {
			t.Fatalf("%s: Start with no descriptor left: %v, want ErrTooManyFiles", mode, err)
		}
		// What to do next is the MCP layer's wording (TestAgentError_Wording).
		want := regexp.MustCompile(`^too many open files \(agentty has 64 open, limit 64\): start /\S+/true: .*too many open files$`)
		if !want.MatchString(err.Error()) {
			t.Fatalf("%s: message %q", mode, err)
		}
		var fe *TooManyFilesError
		if !errors.As(err, &fe) || fe.Open != "64" || fe.Limit != "64" || !errors.Is(fe.Err, syscall.EMFILE) {
			t.Fatalf("%s: %#v, want a TooManyFilesError with 64 open of 64 and EMFILE", mode, fe)
		}
	}
	// Freed descriptors make the same start work.
	for _, f := range held[len(held)-16:] {
		f.Close()
	}
	s, err := m.Start(StartOptions{Argv: []string{"true"}, Mode: record.ModePipe})
	if err != nil {
		t.Fatalf("Start after freeing descriptors: %v", err)
	}
	<-s.Done()
}
