package console_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agentty/agentty/internal/cast"
	"github.com/agentty/agentty/internal/console"
	"github.com/agentty/agentty/internal/console/client"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/record"
)

// fakeEngine serves one session, "s1", whose output is a memory log.
type fakeEngine struct{ term *fakeTerminal }

func (f fakeEngine) List() ([]console.Entry, error) {
	e, _ := f.Get("s1")
	return []console.Entry{e}, nil
}
func (f fakeEngine) Get(id string) (console.Entry, error) {
	if id != "s1" {
		return console.Entry{}, console.Mark(errors.New("session not found: "+id), console.ErrNotFound)
	}
	return console.Entry{Info: record.Info{ID: "s1", Mode: record.ModePTY, State: record.StateRunning}, Live: true}, nil
}
func (f fakeEngine) Terminal(id string) (console.Terminal, error) {
	if _, err := f.Get(id); err != nil {
		return nil, err
	}
	return f.term, nil
}
func (f fakeEngine) Kill(context.Context, string) (console.Entry, error) { return f.Get("s1") }
func (f fakeEngine) Recording(string) (cast.Recording, error) {
	return cast.Recording{}, errors.New("not here")
}
func (f fakeEngine) Search(string, string) (console.SearchResult, error) {
	return console.SearchResult{}, nil
}

type fakeTerminal struct {
	log  *outlog.Memory
	done chan struct{}
}

func (t *fakeTerminal) Output() outlog.Log         { return t.log }
func (t *fakeTerminal) Mode() record.Mode          { return record.ModePTY }
func (t *fakeTerminal) Done() <-chan struct{}      { return t.done }
func (t *fakeTerminal) Status() *record.ExitStatus { return nil }
func (t *fakeTerminal) Watch() <-chan struct{}     { return make(chan struct{}) }
func (t *fakeTerminal) Holder() string             { return "" }
func (t *fakeTerminal) Size() (int, int)           { return 24, 80 }
func (t *fakeTerminal) Type(string, []byte) error  { return nil }
func (t *fakeTerminal) Take(string) error          { return nil }
func (t *fakeTerminal) Release(string, string)     {}
func (t *fakeTerminal) Resize(int, int) error      { return nil }

// A subscriber that stops reading never slows the output down: the
// program's output goes on into the log at full speed, and once the
// subscriber falls behind what the log retains it is closed with 1013 and
// a reason telling it to reconnect.
func TestStream_SlowSubscriberDropped(t *testing.T) {
	for i := range 3 {
		term := &fakeTerminal{log: outlog.NewMemory(1 << 20), done: make(chan struct{})}
		hs := httptest.NewServer(console.New(fakeEngine{term}, nil))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cl, err := client.New(client.Target{URL: hs.URL})
		if err != nil {
			t.Fatal(err)
		}
		st, err := cl.Stream(ctx, "s1", "web", true)
		if err != nil {
			t.Fatal(err)
		}
		// The subscriber reads nothing while 64 MiB are written.
		chunk := []byte(strings.Repeat("x", 64<<10))
		start := time.Now()
		for range 1024 {
			term.log.Append(outlog.Stdout, chunk)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("writing the output took %v with a stalled subscriber", d)
		}
		var got int
		for {
			m, err := st.Recv(ctx)
			if err != nil {
				code, reason := client.CloseReason(err)
				if code != websocket.StatusTryAgainLater || !strings.Contains(reason, "reconnect to replay") {
					t.Fatalf("run %d: stream ended with %v (%d %q), want 1013 telling to reconnect", i, err, code, reason)
				}
				break
			}
			got += len(m.Data)
		}
		if got >= 64<<20 {
			t.Errorf("run %d: the subscriber got all %d bytes; it should have been dropped", i, got)
		}
		cancel()
		hs.Close()
	}
}

// Closing the handler's connections ends every stream goroutine.
func TestStream_EndsWithTheSession(t *testing.T) {
	term := &fakeTerminal{log: outlog.NewMemory(1 << 20), done: make(chan struct{})}
	hs := httptest.NewServer(console.New(fakeEngine{term}, nil))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, _ := client.New(client.Target{URL: hs.URL})
	var wg sync.WaitGroup
	for range 5 {
		st, err := cl.Stream(ctx, "s1", "web", false)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out strings.Builder
			for {
				m, err := st.Recv(ctx)
				if err != nil {
					code, _ := client.CloseReason(err)
					if code != websocket.StatusNormalClosure || out.String() != "hello\r\nbye\r\n" {
						t.Errorf("stream ended %v with %q", err, out.String())
					}
					return
				}
				out.Write(m.Data)
			}
		}()
	}
	term.log.Append(outlog.Stdout, []byte("hello\r\n"))
	term.log.Append(outlog.Stdout, []byte("bye\r\n"))
	term.log.CloseWrite()
	close(term.done)
	wg.Wait()
	if _, err := cl.Stream(ctx, "nope", "web", false); !client.NotFound(err) {
		t.Errorf("stream of an unknown session: %v", err)
	}
}

// A new connection replays at most the last 4 MiB of history, from the
// start of a line.
func TestStream_ReplayBounded(t *testing.T) {
	term := &fakeTerminal{log: outlog.NewMemory(64 << 20), done: make(chan struct{})}
	for i := range 400000 {
		term.log.Append(outlog.Stdout, []byte(fmt.Sprintf("line %06d\r\n", i))) // 13 bytes
	}
	term.log.CloseWrite()
	close(term.done)
	hs := httptest.NewServer(console.New(fakeEngine{term}, nil))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, _ := client.New(client.Target{URL: hs.URL})
	st, err := cl.Stream(ctx, "s1", "web", true)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	for {
		m, err := st.Recv(ctx)
		if err != nil {
			break
		}
		got = append(got, m.Data...)
	}
	const max = 4 << 20
	if len(got) > max+13 || len(got) < max || !strings.HasPrefix(string(got), "line ") || !strings.HasSuffix(string(got), "line 399999\r\n") {
		t.Errorf("replayed %d bytes starting %q, want the last 4 MiB from a line start", len(got), got[:min(len(got), 20)])
	}
}

// Over -http the client sends the bearer token with every request, the
// WebSocket upgrade included, and a refusal reads as the server's error.
func TestClient_SendsToken(t *testing.T) {
	term := &fakeTerminal{log: outlog.NewMemory(1 << 20), done: make(chan struct{})}
	close(term.done)
	term.log.CloseWrite()
	h := console.New(fakeEngine{term}, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"401 Unauthorized: wrong token"}`))
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	good, _ := client.New(client.Target{URL: hs.URL + "/mcp", Token: "tok"})
	if ss, err := good.List(ctx); err != nil || len(ss) != 1 || ss[0].ID != "s1" {
		t.Errorf("List with the token = %+v, %v", ss, err)
	}
	st, err := good.Stream(ctx, "s1", "attach", false)
	if err != nil {
		t.Fatalf("Stream with the token: %v", err)
	}
	st.CloseNow()
	bad, _ := client.New(client.Target{URL: hs.URL, Token: "nope"})
	if _, err := bad.List(ctx); err == nil || !strings.Contains(err.Error(), "wrong token (HTTP 401)") {
		t.Errorf("List with a wrong token: %v", err)
	}
	if _, err := bad.Stream(ctx, "s1", "attach", false); err == nil || !strings.Contains(err.Error(), "wrong token") {
		t.Errorf("Stream with a wrong token: %v", err)
	}
}
