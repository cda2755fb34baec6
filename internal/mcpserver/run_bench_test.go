package mcpserver

import (
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
)

// BenchmarkRunCommand measures one run_command round trip of `true`
// through the MCP client: plain (no containment configured), and with a
// cgroup per run, which adds the group's creation, the clone into it and,
// at the end, cgroup.kill, the wait for "populated 0" and its removal.
func BenchmarkRunCommand(b *testing.B) {
	for _, tc := range []struct {
		name    string
		contain *session.ContainConfig
	}{{"plain", nil}, {"cgroup", &session.ContainConfig{Cgroups: true}}} {
		b.Run(tc.name, func(b *testing.B) {
			c := newClient(b, session.Config{Contain: tc.contain})
			if tc.contain != nil {
				var p PolicyResult
				c.call("get_policy", map[string]any{}, &p)
				if p.Containment == nil || !p.Containment.Kernel.Cgroup {
					b.Fatalf("no cgroup here: %+v", p.Containment)
				}
			}
			var samples []time.Duration
			for b.Loop() {
				start := time.Now()
				var r RunResult
				c.call("run_command", map[string]any{"argv": []string{"true"}}, &r)
				samples = append(samples, time.Since(start))
				if r.ExitCode == nil || *r.ExitCode != 0 {
					b.Fatalf("exit %v", r.ExitCode)
				}
			}
			reportLatency(b, samples)
		})
	}
}
