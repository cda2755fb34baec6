package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deafClient is a raw "agentty serve" client that reads its replies only
// until told to stop (deafen), then sends and never reads again: what a
// client with a paused stdout does.
type deafClient struct {
	t   *testing.T
	cmd *exec.Cmd
	in  *os.File // serve's stdin, our end
	out *bufio.Reader
	id  int
	// exited is closed once serve has exited (and been waited for).
	exited chan struct{}
}

func startDeaf(t *testing.T, cmd *exec.Cmd) *deafClient {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, logFile(t, "deaf-serve.log")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	c := &deafClient{t: t, cmd: cmd, in: inW, out: bufio.NewReaderSize(outR, 1<<20), exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-c.exited
		inW.Close()
		outR.Close()
	})
	c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "deaf", "version": "1"}})
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *deafClient) line(method string, params any) string {
	c.id++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	return string(b)
}

func (c *deafClient) send(line string) {
	c.t.Helper()
	if _, err := c.in.WriteString(line + "\n"); err != nil {
		c.t.Fatalf("serve stopped reading: %v", err)
	}
}

// call sends a request and reads replies up to its own; it returns the
// reply's result and its size.
func (c *deafClient) call(method string, params any) (json.RawMessage, int) {
	c.t.Helper()
	c.send(c.line(method, params))
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			c.t.Fatalf("no reply to %s: %v", method, err)
		}
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && string(r.ID) == strconv.Itoa(c.id) {
			return r.Result, len(line)
		}
	}
}

// flood sends n calls to get_history every 200 ms, never reading, until
// stop closes or serve no longer takes them (it stopped reading, or went
// away). It returns how many it sent.
func (c *deafClient) flood(sessionID string, stop <-chan struct{}) int {
	sent := 0
	for {
		for range 50 {
			_ = c.in.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
			if _, err := c.in.WriteString(c.line("tools/call", map[string]any{"name": "get_history",
				"arguments": map[string]any{"session_id": sessionID, "lines": 10000, "max_bytes": 262144}}) + "\n"); err != nil {
				if os.IsTimeout(err) {
					break // not read: try again next round
				}
				return sent
			}
			sent++
		}
		select {
		case <-stop:
			return sent
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// rssKiBOf is a process's resident set (VmRSS) in KiB, 0 once it is gone.
func rssKiBOf(pid int) int {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			v, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return v
		}
	}
	return 0
}

// deafRSSBound is the most the server may hold while a deaf client floods
// it: 16 calls in flight with 256 KiB replies and 16 MiB of reply bytes
// waiting took 150 MB here, with the race detector up to twice that;
// unbounded, it grew by 150 MB a second to gigabytes.
const deafRSSBound = 512 << 10 // KiB

// watchDeaf samples pid's RSS every 50 ms until disconnected reports
// true, failing the test once RSS passes deafRSSBound or after within. It
// returns the peak in KiB.
func watchDeaf(t *testing.T, pid int, within time.Duration, disconnected func() bool) int {
	t.Helper()
	peak := 0
	deadline := time.Now().Add(within)
	for !disconnected() {
		rss := rssKiBOf(pid)
		peak = max(peak, rss)
		if rss > deafRSSBound {
			t.Fatalf("server RSS %d KiB while a client reads no reply: over the %d KiB bound", rss, deafRSSBound)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deaf client was not disconnected within %v (server RSS %d KiB)", within, rss)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return peak
}

const disconnectLine = "client is not reading its replies: disconnected"

// bigSession starts a session whose last 10,000 lines are about 256 KiB
// through call, and waits until get_history gives that much.
func bigSession(t *testing.T, call func(name string, args map[string]any) (json.RawMessage, int)) string {
	t.Helper()
	res, _ := call("start_process", map[string]any{"argv": []string{"seq", "-f", "%025g", "1", "20000"}})
	var r struct {
		Structured struct {
			SessionID string `json:"session_id"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Structured.SessionID == "" {
		t.Fatalf("start_process: %v: %.300s", err, res)
	}
	deadline := time.Now().Add(callTimeout)
	for {
		if _, n := call("get_history", map[string]any{"session_id": r.Structured.SessionID, "lines": 10000, "max_bytes": 262144}); n > 200<<10 {
			return r.Structured.SessionID
		}
		if time.Now().After(deadline) {
			t.Fatalf("get_history never reached 200 KiB")
		}
	}
}

// TestDeafClient_BoundedAndDisconnected: a client that sends 50 get_history
// calls (256 KiB replies) every 200 ms and never reads keeps the server's
// RSS bounded and is disconnected with a log line; on the daemon, another
// client's calls go on meanwhile and after.
func TestDeafClient_BoundedAndDisconnected(t *testing.T) {
	t.Run("standalone", func(t *testing.T) {
		c := startDeaf(t, selfCommand(t, "serve", "-log-level", "warn"))
		id := bigSession(t, func(name string, args map[string]any) (json.RawMessage, int) {
			return c.call("tools/call", map[string]any{"name": name, "arguments": args})
		})
		stop := make(chan struct{})
		defer close(stop)
		go c.flood(id, stop)
		peak := watchDeaf(t, c.cmd.Process.Pid, 60*time.Second, func() bool {
			select {
			case <-c.exited:
				return true
			default:
				return false
			}
		})
		log := readFile(t, c.cmd.Stderr.(*os.File))
		if !strings.Contains(log, disconnectLine) {
			t.Fatalf("serve ended without the disconnect line; its log:\n%s", log)
		}
		t.Logf("peak RSS %d KiB", peak)
	})
	t.Run("daemon", func(t *testing.T) {
		h := newDaemonHome(t)
		healthy := h.serve(t, nil)
		id := bigSession(t, func(name string, args map[string]any) (json.RawMessage, int) {
			res := healthy.call(name, args, nil)
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			return b, len(b)
		})
		pid := h.status(t).PID
		c := startDeaf(t, h.command(t, "serve", "-log-level", "warn"))
		stop := make(chan struct{})
		defer close(stop)
		go c.flood(id, stop)
		// The healthy client's round trips go on throughout.
		pings := make(chan time.Duration, 1024)
		pingErr := make(chan error, 1)
		go func() {
			defer close(pings)
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				start := time.Now()
				err := healthy.cs.Ping(ctx, nil)
				cancel()
				if err != nil {
					pingErr <- err
					return
				}
				select {
				case pings <- time.Since(start):
				default:
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		peak := watchDeaf(t, pid, 60*time.Second, func() bool { return strings.Contains(h.log(t), disconnectLine) })
		select {
		case err := <-pingErr:
			t.Fatalf("the healthy client's ping failed during the flood: %v", err)
		default:
		}
		// The deaf client's relaying serve ends too: its next request
		// fails on the closed socket, and it has 10 s to be read.
		select {
		case <-c.exited:
		case <-time.After(60 * time.Second):
			t.Fatalf("the deaf client's serve still runs 60 s after the daemon cut it off")
		}
		var rtts []time.Duration
		for len(pings) > 0 {
			rtts = append(rtts, <-pings)
		}
		if len(rtts) < 10 {
			t.Fatalf("the healthy client made %d round trips during the flood", len(rtts))
		}
		slices.Sort(rtts)
		t.Logf("peak daemon RSS %d KiB; healthy pings %d, p50 %v, p99 %v", peak, len(rtts), rtts[len(rtts)/2], rtts[len(rtts)*99/100])
		// After: the healthy client still works, with the full reply.
		if _, n := func() (json.RawMessage, int) {
			res := healthy.call("get_history", map[string]any{"session_id": id, "lines": 10000, "max_bytes": 262144}, nil)
			b, _ := json.Marshal(res)
			return b, len(b)
		}(); n < 200<<10 {
			t.Fatalf("get_history after the flood: %d bytes", n)
		}
	})
}
