package httpserver

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestGatePOST_AnswersPassTheCap: while an MCP session is at its call cap,
// a POST carrying only responses or notifications (the person's answer to
// an elicitation a waiting call asked for, a cancellation) reaches the
// session at once, with its body whole; a POST carrying a request waits.
func TestGatePOST_AnswersPassTheCap(t *testing.T) {
	f := newFlows(slog.New(slog.DiscardHandler))
	for range maxSessionCalls {
		done, ok := f.admit(context.Background(), "S")
		if !ok {
			t.Fatal("admit refused below the cap")
		}
		defer done()
	}
	got := make(chan string, 1)
	h := f.gatePOST(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- string(b)
	}))
	big := `{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"x":"` + strings.Repeat("a", answerPeek) + `"}}}`
	for _, tc := range []struct {
		name, body string
		passes     bool
	}{
		{"elicitation answer", `{"jsonrpc":"2.0","id":3,"result":{"action":"accept","content":{"password":"x"}}}`, true},
		{"cancellation", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`, true},
		{"batch of answers", `[{"jsonrpc":"2.0","id":3,"result":{}},{"jsonrpc":"2.0","method":"notifications/progress"}]`, true},
		{"call", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list_sessions"}}`, false},
		{"batch with a call", `[{"jsonrpc":"2.0","id":3,"result":{}},{"jsonrpc":"2.0","id":9,"method":"ping"}]`, false},
		{"answer past the peek", big, false},
		{"not JSON", `{"jsonrpc":`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", strings.NewReader(tc.body))
			r.Header.Set(sessionIDHeader, "S")
			h.ServeHTTP(httptest.NewRecorder(), r)
			select {
			case b := <-got:
				if !tc.passes {
					t.Fatal("passed the full cap")
				}
				if b != tc.body {
					t.Fatalf("the session read %d bytes, want the body's %d", len(b), len(tc.body))
				}
			default:
				if tc.passes {
					t.Fatal("held at the cap")
				}
			}
		})
	}
}
