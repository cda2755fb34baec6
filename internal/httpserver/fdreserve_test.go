//go:build unix

package httpserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/mcpserver"
)

// fdChildEnv makes TestFDReserveChild run, with the descriptor limit it
// names; the parent test starts it as a separate process so the low limit
// binds the server only.
const fdChildEnv = "AGENTTY_TEST_FD_CHILD_NOFILE"

// A flood of connections from several addresses, twice the server's
// descriptor limit, cannot starve it: a client already connected still
// starts processes and /healthz still answers, counting the refusals.
func TestFDReserve_FloodLeavesRoomForSessions(t *testing.T) {
	const nofile, ips, perIP = 256, 8, 64 // 512 connections
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur < 2*ips*perIP {
		t.Skipf("the flood needs %d descriptors in the test process (have %d)", 2*ips*perIP, rl.Cur)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFDReserveChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fdChildEnv+"="+strconv.Itoa(nofile))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // the child stops its server and exits
		if err := cmd.Wait(); err != nil {
			t.Errorf("child: %v", err)
		}
	})
	base := childURL(t, stdout)
	s := &testServer{base: base}
	addr := strings.TrimPrefix(base, "http://")

	legit := s.connect(t, transports[0], clientOpts{})
	catSession(legit) // its connection is open before the flood

	// Idle connections: each holds a descriptor until the header timeout.
	// Accept takes connections in order, so the calls below come after
	// the whole flood.
	for i := range ips {
		for range perIP {
			c, err := dialFrom(addr, fmt.Sprintf("127.0.0.%d", 2+i))
			if err != nil {
				t.Fatalf("flood: %v", err)
			}
			t.Cleanup(func() { c.Close() })
		}
	}

	var r mcpserver.StartResult
	legit.call("start_process", map[string]any{"argv": []string{"echo", "still-room"}, "mode": "pipe", "until": "exit"}, &r)
	if !strings.Contains(r.Output, "still-room") {
		t.Fatalf("start_process under the flood: %+v", r)
	}

	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Get(base + "/healthz")
	if err != nil {
		t.Fatalf("/healthz under the flood: %v", err)
	}
	defer resp.Body.Close()
	var h Health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	// 256 descriptors: 128 kept for sessions, 16 for spare connections.
	// Every connection of the flood is open, refused or was evicted (the
	// legit client's own connections come and go meanwhile).
	if h.ConnLimit != nofile-nofile/2-spareConns || h.ConnsOpen > h.ConnLimit || h.ConnsRefused+h.ConnsEvicted < ips*perIP-int64(h.ConnLimit) {
		t.Fatalf("/healthz under the flood = %+v", h)
	}
	t.Logf("/healthz under the flood: %+v", h)
}

// childURL reads the URL the child prints.
func childURL(t *testing.T, out io.Reader) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "URL "); ok {
				got <- u
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case u := <-got:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("the child printed no URL")
		return ""
	}
}

// TestFDReserveChild is the server of TestFDReserve_FloodLeavesRoomForSessions,
// under a low descriptor limit; it serves until its stdin closes.
func TestFDReserveChild(t *testing.T) {
	n, err := strconv.ParseUint(os.Getenv(fdChildEnv), 10, 64)
	if err != nil {
		return // runs only as the child of TestFDReserve_FloodLeavesRoomForSessions (not a skip: nothing is left out)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, nil)
	fmt.Printf("URL %s\n", s.base)
	_, _ = io.Copy(io.Discard, os.Stdin)
}
