package httpserver

import (
	"context"
	"regexp"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress notifications of a long wait reach the client over every
// transport, on the stream of the call that asked for them.
func TestProgress_OverHTTP(t *testing.T) {
	lineRE := regexp.MustCompile(`^step [1-9]$|^step 1[0-5]$|^finished$`)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := startServer(t, nil)
			var mu sync.Mutex
			var got []*mcp.ProgressNotificationParams
			c := s.connect(t, tr, clientOpts{progress: func(p *mcp.ProgressNotificationParams) {
				mu.Lock()
				got = append(got, p)
				mu.Unlock()
			}})
			p := &mcp.CallToolParams{Name: "start_process", Arguments: map[string]any{
				"command": `for i in $(seq 1 15); do echo "step $i"; sleep 0.1; done; echo finished`,
				"mode":    "pipe", "until": "^finished$", "settle_ms": 0, "timeout_ms": 30000}}
			p.SetProgressToken("p1")
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			res, err := c.cs.CallTool(ctx, p)
			if err != nil || res.IsError {
				t.Fatalf("start_process: %v %+v", err, res)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) < 2 {
				t.Fatalf("%d progress notifications over a 1.5 s wait, want several", len(got))
			}
			for _, n := range got {
				if n.ProgressToken != "p1" || !lineRE.MatchString(n.Message) {
					t.Errorf("notification %+v", n)
				}
			}
		})
	}
}
