package mcpserver

import (
	"testing"
	"time"
)

// BenchmarkSSH_ExecCommand measures one exec_command round trip on a
// remote bash over SSH to localhost (command file written over an exec
// channel, sourced, marks read back), next to the same on a local bash;
// and one run_command of echo on a warm connection.
func BenchmarkSSH_ExecCommand(b *testing.B) {
	e := newSSHEnv(b)
	for _, where := range []string{"local", "ssh"} {
		b.Run("exec_command/"+where, func(b *testing.B) {
			c := newSSHClient(b, e.options())
			args := map[string]any{"shell": "bash", "no_rc": true}
			if where == "ssh" {
				args["host"] = e.srv.Target(e.srv.Addr)
			}
			var sh OpenShellResult
			c.call("open_shell", args, &sh)
			var ds []time.Duration
			for b.Loop() {
				var r ExecResult
				t0 := time.Now()
				c.call("exec_command", map[string]any{"session_id": sh.SessionID, "command": "echo hi"}, &r)
				ds = append(ds, time.Since(t0))
				if r.Output != "hi\n" || r.ExitCode == nil || *r.ExitCode != 0 {
					b.Fatalf("echo hi: %+v", r)
				}
			}
			reportQuantiles(b, ds)
		})
	}
	b.Run("run_command/ssh", func(b *testing.B) {
		c := newSSHClient(b, e.options())
		args := map[string]any{"host": e.srv.Target(e.srv.Addr), "argv": []string{"echo", "hi"}}
		var ds []time.Duration
		for b.Loop() {
			var r RunResult
			t0 := time.Now()
			c.call("run_command", args, &r)
			ds = append(ds, time.Since(t0))
			if r.Stdout.Text != "hi\n" || !r.OK {
				b.Fatalf("echo hi: %+v", r)
			}
		}
		reportQuantiles(b, ds)
	})
	b.Run("open_shell/ssh", func(b *testing.B) {
		c := newSSHClient(b, e.options())
		host := e.srv.Target(e.srv.Addr)
		c.call("run_command", map[string]any{"host": host, "argv": []string{"true"}}, nil) // warm the connection
		var ds []time.Duration
		for b.Loop() {
			var sh OpenShellResult
			t0 := time.Now()
			c.call("open_shell", map[string]any{"host": host, "shell": "bash", "no_rc": true}, &sh)
			ds = append(ds, time.Since(t0))
			c.call("terminate_process", map[string]any{"session_id": sh.SessionID, "force": true}, nil)
			c.call("delete_session", map[string]any{"session_id": sh.SessionID}, nil)
		}
		reportQuantiles(b, ds)
	})
}
