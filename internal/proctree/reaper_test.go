//go:build linux

package proctree

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestReaper runs the scenario in a re-exec'd test binary so only that
// process becomes a subreaper. Without RunReaper the orphan must stay a
// zombie, which shows the check can fail.
func TestReaper(t *testing.T) {
	for _, tt := range []struct{ mode, want string }{
		{"reaper", "REAPED"},
		{"noreaper", "ZOMBIE"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*waitLimit)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), modeEnv+"="+tt.mode)
			out, err := cmd.CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != tt.want {
				t.Fatalf("child: err %v, output %q, want %q", err, out, tt.want)
			}
		})
	}
}

// reaperChild becomes a subreaper, orphans a grandchild, lets it exit, and
// prints whether it was reaped (REAPED) or left a zombie (ZOMBIE).
func reaperChild(withReaper bool) int {
	fail := func(format string, args ...any) int {
		fmt.Printf(format+"\n", args...)
		return 1
	}
	if err := SetSubreaper(); err != nil {
		return fail("%v", err)
	}
	var mu sync.Mutex
	owned := map[int]bool{}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		if withReaper {
			RunReaper(ctx, func(pid int) bool {
				mu.Lock()
				defer mu.Unlock()
				return owned[pid]
			})
		}
	}()
	defer func() {
		cancel()
		<-stopped
	}()

	// The grandchild cat lives until we close the pipe's write end.
	pr, pw, err := os.Pipe()
	if err != nil {
		return fail("%v", err)
	}
	var out bytes.Buffer
	cmd := exec.Command("sh", "-c", "cat <&3 >/dev/null 2>&1 & echo $!")
	cmd.ExtraFiles = []*os.File{pr}
	cmd.Stdout = &out
	mu.Lock()
	err = cmd.Start()
	if err == nil {
		owned[cmd.Process.Pid] = true
	}
	mu.Unlock()
	pr.Close()
	if err != nil {
		return fail("%v", err)
	}
	// Must succeed: the reaper may not steal an owned child's status.
	if err := cmd.Wait(); err != nil {
		return fail("wait owned child: %v", err)
	}
	gpid, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		return fail("grandchild pid %q: %v", out.String(), err)
	}
	st, err := readStat(gpid)
	if err != nil || st.PPID != os.Getpid() {
		return fail("grandchild %d not adopted: %+v %v", gpid, st, err)
	}
	pw.Close()

	if withReaper {
		if !poll(func() bool { _, err := readStat(gpid); return os.IsNotExist(err) }) {
			return fail("orphan %d not reaped", gpid)
		}
		fmt.Println("REAPED")
		return 0
	}
	if !poll(func() bool { st, err := readStat(gpid); return err == nil && st.dead() }) {
		return fail("orphan %d did not become a zombie", gpid)
	}
	// One explicit pass reaps it and leaves the owned-skip path untouched.
	if n := reapOrphans(nil); n != 1 {
		return fail("reapOrphans reaped %d, want 1", n)
	}
	if _, err := readStat(gpid); !os.IsNotExist(err) {
		return fail("orphan %d still present after reapOrphans: %v", gpid, err)
	}
	fmt.Println("ZOMBIE")
	return 0
}

// BenchmarkReapOrphans_OwnedChildren is one SIGCHLD's scan with 500 live
// children that sessions own (and wait for themselves): what every session
// exit costs the reaper at scale.
//
//	go test -run '^$' -bench ReapOrphans -benchtime 200x ./internal/proctree
func BenchmarkReapOrphans_OwnedChildren(b *testing.B) {
	owned := map[int]bool{}
	for range 500 {
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		owned[cmd.Process.Pid] = true
		b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	}
	for b.Loop() {
		if n := reapOrphans(func(pid int) bool { return owned[pid] }); n != 0 {
			b.Fatalf("reaped %d owned children", n)
		}
	}
}
