//go:build linux

package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/mcpserver"
)

// Benchmarks of agentty node in Docker (docs/nodes.md quotes them):
//
//	go test -run XXX -bench 'Docker|MCP_RoundTrip' -benchtime 200x ./cmd/agentty

// replRoundTrips measures send_input round trips to a python REPL on host.
func replRoundTrips(b *testing.B, s *server, host string) {
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": host, "argv": []string{"python3", "-q"}}, &r)
	var d []time.Duration
	i := 0
	for b.Loop() {
		var sr mcpserver.SendResult
		t0 := time.Now()
		s.call("send_input", map[string]any{"session_id": r.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &sr)
		d = append(d, time.Since(t0))
		if want := fmt.Sprintf("%d\n>>> ", i*7); sr.Output != want {
			b.Fatalf("round trip %d: %q, want %q", i, sr.Output, want)
		}
		i++
	}
	quantiles(b, d)
}

func BenchmarkDocker_REPLRoundTrip(b *testing.B) {
	e := dockerEnv(b)
	s := e.serve(b)
	replRoundTrips(b, s, "docker://"+e.container(b))
}

func BenchmarkLocal_REPLRoundTrip(b *testing.B) {
	replRoundTrips(b, startServer(b), "")
}

// BenchmarkDocker_StartWarm starts `true` in a container whose node runs.
func BenchmarkDocker_StartWarm(b *testing.B) {
	e := dockerEnv(b)
	s := e.serve(b)
	host := "docker://" + e.container(b)
	s.call("start_process", map[string]any{"host": host, "argv": []string{"true"}, "mode": "pipe"}, nil)
	var d []time.Duration
	for b.Loop() {
		var r mcpserver.StartResult
		t0 := time.Now()
		s.call("start_process", map[string]any{"host": host, "argv": []string{"true"}, "mode": "pipe"}, &r)
		d = append(d, time.Since(t0))
		b.StopTimer()
		s.call("delete_session", map[string]any{"session_id": r.SessionID}, nil)
		b.StartTimer()
	}
	quantiles(b, d)
}

// BenchmarkDocker_StartCold is the first start of a fresh agentty in a
// container that has the binary: inspect, stat, exec, the node's hello.
func BenchmarkDocker_StartCold(b *testing.B) {
	e := dockerEnv(b)
	host := "docker://" + e.container(b)
	var d []time.Duration
	for b.Loop() {
		b.StopTimer()
		s := e.serve(b)
		b.StartTimer()
		t0 := time.Now()
		s.call("start_process", map[string]any{"host": host, "argv": []string{"true"}, "mode": "pipe"}, nil)
		d = append(d, time.Since(t0))
		b.StopTimer()
		s.close()
		b.StartTimer()
	}
	quantiles(b, d)
}

// BenchmarkMCP_RoundTrip is the protocol candidate not taken: one MCP
// tools/call (list_sessions) over stdio to an agentty serve, against the
// framed protocol's round trip (nodebackend BenchmarkNode_Ping).
func BenchmarkMCP_RoundTrip(b *testing.B) {
	s := startServer(b)
	var d []time.Duration
	for b.Loop() {
		t0 := time.Now()
		s.call("list_sessions", nil, nil)
		d = append(d, time.Since(t0))
	}
	quantiles(b, d)
}
