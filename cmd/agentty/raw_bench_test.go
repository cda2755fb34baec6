package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/bench"
)

// BenchmarkRaw_REPLRoundTrip is a send_input round trip to python3 on a PTY
// through "agentty serve" over stdio, driven by a raw JSON-RPC client (no
// MCP library on the client's side), so what it measures is the server's
// own cost. Besides the latency it reports the server's CPU time and
// context switches (every thread's, voluntary or not) per call. "meta"
// sends each call as the SDK's client does on protocol 2026-07-28, with
// its per-request _meta (version, capabilities, client info), which the
// SDK's server decodes on every call:
//
//	go test -run '^$' -bench Raw_REPLRoundTrip -benchtime 3000x ./cmd/agentty
func BenchmarkRaw_REPLRoundTrip(b *testing.B) {
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"roots": map[string]any{"listChanged": true}},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"}}
	b.Run("plain", func(b *testing.B) { rawREPLRoundTrips(b, nil) })
	b.Run("meta", func(b *testing.B) { rawREPLRoundTrips(b, meta) })
}

func rawREPLRoundTrips(b *testing.B, meta map[string]any) {
	s := startRaw(b, "-standalone", "-no-store")
	var st toolResult
	if err := json.Unmarshal(s.request("tools/call", map[string]any{"name": "start_process",
		"arguments": map[string]any{"argv": []string{"python3", "-q"}}}).Result, &st); err != nil || st.IsError {
		b.Fatalf("start_process: %v %+v", err, st)
	}
	id, _ := st.Structured["session_id"].(string)
	// Timed once the server's start settled, as agentty bench does: a
	// second in, it collects, drops its pages and goes down to one CPU.
	time.Sleep(1500 * time.Millisecond) // no event tells when that happened
	cpu0, sw0 := processCost(b, s.pid)
	var d []time.Duration
	i := 0
	for b.Loop() {
		i++
		t0 := time.Now()
		params := map[string]any{"name": "send_input",
			"arguments": map[string]any{"session_id": id, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}}
		if meta != nil {
			params["_meta"] = meta
		}
		r := s.request("tools/call", params)
		d = append(d, time.Since(t0))
		var res toolResult
		if err := json.Unmarshal(r.Result, &res); err != nil || res.Structured["output"] != fmt.Sprintf("%d\n>>> ", i*7) {
			b.Fatalf("round trip %d: %v %s", i, err, r.Result)
		}
	}
	cpu1, sw1 := processCost(b, s.pid)
	quantiles(b, d)
	b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(i), "server-cpu-us/op")
	b.ReportMetric(float64(sw1-sw0)/float64(i), "server-switches/op")
}

// processCost is pid's CPU time (user and system, at the clock tick's
// resolution) and the context switches of all its threads.
func processCost(b *testing.B, pid int) (time.Duration, int64) {
	b.Helper()
	cpu, err := bench.ProcessCPU(pid)
	if err != nil {
		b.Fatal(err)
	}
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	var switches int64
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.HasSuffix(k, []byte("ctxt_switches")) {
				n, _ := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
				switches += n
			}
		}
	}
	return cpu, switches
}
