package server

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/toolcall"
)

// BenchmarkConsole_KeystrokeEcho measures what a person at `agentty attach`
// feels: one key sent over the console's WebSocket (unix socket, as to the
// daemon) until the program's echo of it arrives back. The program echoes
// in raw mode itself, as a shell's line editor does. It reports the median
// and 95th percentile.
func BenchmarkConsole_KeystrokeEcho(b *testing.B) {
	c := startConsole(b, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	echo := "import os, sys, tty\ntty.setraw(0)\nos.write(1, b'ready\\n')\nwhile True:\n    os.write(1, os.read(0, 1024))\n"
	var out struct {
		SessionID string `json:"session_id"`
	}
	if _, err := toolcall.Checked(ctx, c.agent, "start_process", map[string]any{"argv": []string{"python3", "-c", echo},
		"until": "ready"}, &out); err != nil {
		b.Fatal(err)
	}
	st, err := c.client(b).Stream(ctx, out.SessionID, "attach", false)
	if err != nil {
		b.Fatal(err)
	}
	defer st.CloseNow()
	var seen []byte
	waitFor := func(key byte) {
		for bytes.IndexByte(seen, key) < 0 {
			m, err := st.Recv(ctx)
			if err != nil {
				b.Fatal(err)
			}
			seen = append(seen, m.Data...)
		}
		seen = seen[:0]
	}
	waitFor('\n') // the retained "ready"
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		key := byte('a' + i%26)
		start := time.Now()
		if err := st.Keys(ctx, []byte{key}); err != nil {
			b.Fatal(err)
		}
		waitFor(key)
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "median-µs")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "p95-µs")
}
