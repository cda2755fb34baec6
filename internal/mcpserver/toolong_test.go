//go:build linux

package mcpserver

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/session"
)

// TestCommandLine_TooLong: an argv over -max-input-bytes is refused by that
// limit in every tool that runs one; one the kernel refuses (E2BIG) says
// so, with the sizes and the kernel's limit, never "not found".
func TestCommandLine_TooLong(t *testing.T) {
	const next = "; nothing was started. Pass big data in a file (write_file, then have the program read it) or on stdin"
	t.Run("over max-input-bytes", func(t *testing.T) {
		c := newClient(t, session.Config{})
		argv := []string{"true"}
		for range 12 {
			argv = append(argv, strings.Repeat("a", 100<<10))
		}
		want := "input too large: the command line is 1228816 bytes; this server takes at most 1048576 bytes of input per call (flag -max-input-bytes): pass big data in a file (write_file) or on stdin instead of as arguments, or raise -max-input-bytes"
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{"run_command", map[string]any{"argv": argv}},
			{"start_process", map[string]any{"argv": argv}},
		} {
			if msg := c.toolError(call.tool, call.args); msg != want {
				t.Errorf("%s: %q, want %q", call.tool, clipMsg(msg), want)
			}
		}
	})
	t.Run("one argument over MAX_ARG_STRLEN", func(t *testing.T) {
		c := newClient(t, session.Config{})
		argv := []string{"true", strings.Repeat("a", 200<<10)}
		want := fmt.Sprintf(": argument list too long: argument 1 is 204800 bytes, and the kernel takes at most %d bytes in one argument or environment string (MAX_ARG_STRLEN)%s",
			32*os.Getpagesize()-1, next)
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{"run_command", map[string]any{"argv": argv}},
			{"start_process", map[string]any{"argv": argv}},
			{"start_process", map[string]any{"argv": argv, "mode": "pipe"}},
		} {
			msg := c.toolError(call.tool, call.args)
			if !strings.HasPrefix(msg, "start /") || !strings.Contains(msg, "/true"+want) || strings.Contains(msg, "not found") {
				t.Errorf("%s %v: %q, want start …/true%s", call.tool, call.args["mode"], clipMsg(msg), want)
			}
		}
	})
	t.Run("in a sandbox", func(t *testing.T) {
		// The helper that applies the sandbox takes the program's argv
		// beside it, not in one environment string of at most 128 KiB:
		// the program gets the kernel's limits, and their words.
		c := containClient(t, contain.Profile{Sandbox: contain.Sandbox{Filesystem: contain.FSReadOnly}})
		argv := []string{"sh", "-c", "echo ${#1} ${#2}", "sh", strings.Repeat("a", 80<<10), strings.Repeat("b", 80<<10)}
		r := c.start(map[string]any{"argv": argv, "mode": "pipe", "return_on": []string{"exit"}})
		if r.Output != "81920 81920\n" || r.ExitCode == nil || *r.ExitCode != 0 {
			t.Fatalf("160 KiB of arguments in a sandbox: %+v", r)
		}
		msg := c.toolError("start_process", map[string]any{"argv": []string{"true", strings.Repeat("a", 200<<10)}})
		if !strings.Contains(msg, "/true: argument list too long: argument 1 is 204800 bytes") || !strings.Contains(msg, next) {
			t.Fatalf("%q", clipMsg(msg))
		}
	})
	t.Run("arguments over ARG_MAX", func(t *testing.T) {
		var rl syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_STACK, &rl); err != nil {
			t.Fatal(err)
		}
		limit := max(min(6<<20, int(min(rl.Cur/4, 1<<40))), 32*os.Getpagesize())
		// Each string counts with its NUL and a pointer to it.
		argv, n := []string{"true"}, 5+8
		for n <= limit {
			argv = append(argv, strings.Repeat("a", 100<<10))
			n += 100<<10 + 1 + 8
		}
		c := newClient(t, session.Config{MaxInputBytes: 2 * n})
		msg := c.toolError("run_command", map[string]any{"argv": argv})
		want := fmt.Sprintf(": argument list too long: the arguments take %d bytes and the environment ", n)
		if !strings.Contains(msg, want) || !strings.Contains(msg, fmt.Sprintf("; the kernel takes at most %d bytes for both (ARG_MAX", limit)) ||
			!strings.HasSuffix(strings.SplitN(msg, ". Pass", 2)[0], "; nothing was started") || strings.Contains(msg, "not found") {
			t.Fatalf("%q, want %q and the limit %d", clipMsg(msg), want, limit)
		}
	})
}
