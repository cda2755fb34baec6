package mcpserver

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"
)

// reportQuantiles adds median and p95 of ds (in ms) to the benchmark.
func reportQuantiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	q := func(p float64) float64 {
		return float64(ds[min(len(ds)-1, int(p*float64(len(ds))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.95), "p95-ms")
}

// BenchmarkSSH_RoundTrip compares one send_input round trip to a python3
// REPL on a local PTY with the same over SSH to localhost (remote PTY,
// remote /proc probe).
func BenchmarkSSH_RoundTrip(b *testing.B) {
	e := newSSHEnv(b)
	for _, where := range []string{"local-pty", "ssh-pty"} {
		b.Run(where, func(b *testing.B) {
			c := newSSHClient(b, e.options())
			args := map[string]any{"argv": []string{"python3", "-q"}}
			if where == "ssh-pty" {
				args["host"] = e.srv.Target(e.srv.Addr)
			}
			st := c.start(args)
			if st.Reason != "awaiting_input" || st.Output != ">>> " {
				b.Fatalf("start: %q reason=%s", st.Output, st.Reason)
			}
			var ds []time.Duration
			i := 0
			for b.Loop() {
				i++
				var r SendResult
				t0 := time.Now()
				c.call("send_input", map[string]any{"session_id": st.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &r)
				ds = append(ds, time.Since(t0))
				if want := strconv.Itoa(i*7) + "\n>>> "; r.Output != want || r.Reason != "awaiting_input" {
					b.Fatalf("reply %d: %q reason=%s, want %q awaiting_input", i, r.Output, r.Reason, want)
				}
			}
			reportQuantiles(b, ds)
		})
	}
}

// BenchmarkSSH_StartWarm measures start_process on a host whose connection
// is already open: a new channel, the remote command's start and its pid.
func BenchmarkSSH_StartWarm(b *testing.B) {
	e := newSSHEnv(b)
	c := newSSHClient(b, e.options())
	host := e.srv.Target(e.srv.Addr)
	c.start(map[string]any{"host": host, "argv": []string{"true"}, "mode": "pipe"}) // warm the connection
	var ds []time.Duration
	for b.Loop() {
		var st StartResult
		t0 := time.Now()
		c.call("start_process", map[string]any{"host": host, "argv": []string{"cat"}, "mode": "pipe", "timeout_ms": 0}, &st)
		ds = append(ds, time.Since(t0))
		c.call("terminate_process", map[string]any{"session_id": st.SessionID, "force": true}, nil)
		c.call("delete_session", map[string]any{"session_id": st.SessionID}, nil)
	}
	reportQuantiles(b, ds)
}

// BenchmarkSSH_SeqThroughput measures how fast remote output reaches the
// log: seq 1 2000000 (14.9 MB) in pipe mode, locally and over SSH.
func BenchmarkSSH_SeqThroughput(b *testing.B) {
	const size = 14888896 // bytes of seq 1 2000000
	e := newSSHEnv(b)
	for _, where := range []string{"local", "ssh"} {
		b.Run(where, func(b *testing.B) {
			c := newSSHClient(b, e.options())
			b.SetBytes(size)
			for b.Loop() {
				args := map[string]any{"argv": []string{"seq", "1", "2000000"}, "mode": "pipe", "timeout_ms": 60000, "settle_ms": 0, "max_bytes": 1, "overflow": "page"}
				if where == "ssh" {
					args["host"] = e.srv.Target(e.srv.Addr)
				}
				st := c.start(args)
				if st.State != "exited" {
					b.Fatalf("state %s", st.State)
				}
				var info InfoResult
				c.call("get_session_info", map[string]any{"session_id": st.SessionID}, &info)
				if info.Bytes != size {
					b.Fatalf("%d bytes, want %d", info.Bytes, size)
				}
				c.call("delete_session", map[string]any{"session_id": st.SessionID}, nil)
			}
		})
	}
}
