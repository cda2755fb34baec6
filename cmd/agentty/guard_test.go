package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/guardstart"
	"github.com/agentty/agentty/internal/proctree"
)

// TestGuard_RunsBeforeHeavyInits: the guard starts from guardstart's init,
// after only the packages it needs, so the heap the Docker, Kubernetes,
// MCP and SQLite packages build in their inits never exists in it (it
// stayed live for the guard's whole life: 1.3 MB of a 3.8 MiB RssAnon).
func TestGuard_RunsBeforeHeavyInits(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, guardstart.Arg)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", proctree.GuardInstanceEnv+"=guard-init-test")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, stdout := startPiped(t, cmd)
	// The guard reports it is armed with one byte, then waits for EOF.
	ready := make([]byte, 1)
	if _, err := io.ReadFull(stdout, ready); err != nil {
		t.Fatalf("guard did not report ready: %v; stderr %s", err, stderr.String())
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("guard: %v; stderr %s", err, stderr.String())
	}

	// The inits that allocate most (GODEBUG=inittrace=1 agentty version);
	// small leaf packages of the same modules may come before the guard.
	heavy := []string{"github.com/distribution/reference", "github.com/opencontainers/go-digest", "k8s.io/api/core/v1",
		"github.com/google/jsonschema-go/jsonschema", "github.com/modelcontextprotocol/go-sdk/mcp", "modernc.org/sqlite"}
	var pkgs int
	var allocated int64
	trace := stderr.String()
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		// "init PKG @T ms, C ms clock, B bytes, A allocs"
		f := strings.Fields(sc.Text())
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		pkgs++
		for _, h := range heavy {
			if f[1] == h {
				t.Errorf("%s initialized in the guard", f[1])
			}
		}
		b, err := strconv.ParseInt(f[7], 10, 64)
		if err != nil {
			t.Fatalf("init trace line %q: %v", sc.Text(), err)
		}
		allocated += b
	}
	t.Logf("%d package inits in the guard allocated %d bytes", pkgs, allocated)
	if pkgs == 0 {
		t.Fatalf("no init trace from the guard; stderr %q", trace)
	}
	// All of the binary's inits allocate ≈ 1.4 MB; the guard's share was
	// 120 KB when this was written.
	if allocated > 256<<10 {
		t.Errorf("inits in the guard allocated %d bytes, want under 256 KiB", allocated)
	}
}
