package mcpserver

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/agentty/agentty/internal/session"
)

// reportLatency adds median and p95 of the samples as benchmark metrics.
func reportLatency(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(samples[len(samples)/2]), "median-ms")
	b.ReportMetric(ms(samples[len(samples)*95/100]), "p95-ms")
}

// BenchmarkExecCommand measures one exec_command round trip through the
// MCP client: type the command, wait for its D mark, return output, exit
// code and cwd.
func BenchmarkExecCommand(b *testing.B) {
	for _, kind := range []string{"bash", "sh"} {
		for _, tc := range []struct{ name, command, output string }{{"true", "true", ""}, {"echo_hi", "echo hi", "hi\n"}} {
			b.Run(kind+"/"+tc.name, func(b *testing.B) {
				c := newClient(b, session.Config{})
				var sh OpenShellResult
				c.call("open_shell", map[string]any{"shell": kind, "no_rc": true}, &sh)
				var samples []time.Duration
				for b.Loop() {
					start := time.Now()
					var r ExecResult
					c.call("exec_command", map[string]any{"session_id": sh.SessionID, "command": tc.command}, &r)
					samples = append(samples, time.Since(start))
					if r.Output != tc.output || r.ExitCode == nil || *r.ExitCode != 0 {
						b.Fatalf("%q: output %q exit %v", tc.command, r.Output, r.ExitCode)
					}
				}
				reportLatency(b, samples)
			})
		}
	}
}

// BenchmarkShellDirect is the shell's own time for the same round trip,
// without agentty: type the command on a raw PTY and read until the next
// prompt.
func BenchmarkShellDirect(b *testing.B) {
	for _, kind := range []string{"bash", "sh"} {
		for _, tc := range []struct{ name, command string }{{"true", "true"}, {"echo_hi", "echo hi"}} {
			b.Run(kind+"/"+tc.name, func(b *testing.B) {
				argv := []string{"sh", "-i"}
				if kind == "bash" {
					argv = []string{"bash", "--norc", "--noprofile", "-i"}
				}
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env = append(os.Environ(), "PS1=READY> ", "ENV=")
				f, err := pty.Start(cmd)
				if err != nil {
					b.Fatal(err)
				}
				defer func() { f.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() }()
				buf := make([]byte, 0, 4096)
				readPrompt := func() {
					buf = buf[:0]
					tmp := make([]byte, 4096)
					for !bytes.HasSuffix(buf, []byte("READY> ")) {
						n, err := f.Read(tmp)
						if err != nil {
							b.Fatal(err)
						}
						buf = append(buf, tmp[:n]...)
					}
				}
				readPrompt()
				var samples []time.Duration
				for b.Loop() {
					start := time.Now()
					if _, err := f.Write([]byte(tc.command + "\r")); err != nil {
						b.Fatal(err)
					}
					readPrompt()
					samples = append(samples, time.Since(start))
				}
				reportLatency(b, samples)
			})
		}
	}
}
