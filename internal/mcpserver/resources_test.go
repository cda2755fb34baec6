package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/session"
)

// updates counts notifications/resources/updated per URI.
type updates struct {
	mu   sync.Mutex
	n    map[string]int
	more chan struct{} // closed and replaced at each notification
}

func newUpdates() *updates { return &updates{n: map[string]int{}, more: make(chan struct{})} }

func (u *updates) handler(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.n[r.Params.URI]++
	close(u.more)
	u.more = make(chan struct{})
}

func (u *updates) count(uri string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.n[uri]
}

// await waits until uri has had more than n notifications.
func (u *updates) await(t testing.TB, uri string, n int) int {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		u.mu.Lock()
		got, more := u.n[uri], u.more
		u.mu.Unlock()
		if got > n {
			return got
		}
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("no notification for %s after %d", uri, n)
		}
	}
}

// awaitWatching waits until mgr runs want watchers.
func awaitWatching(t testing.TB, mgr *session.Manager, want int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for mgr.Watching() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d watchers run, want %d", mgr.Watching(), want)
		}
		time.Sleep(5 * time.Millisecond) // polling a counter: there is no event to wait on
	}
}

func TestResources_ListReadSubscribe(t *testing.T) {
	u := newUpdates()
	mgr := session.NewManager(session.Config{})
	srv := New(mgr, withEngine(mgr, nil))
	c := connect(t, mgr, srv, "test", &mcp.ClientOptions{ResourceUpdatedHandler: u.handler}, nil, nil)
	ctx := context.Background()

	lr, err := c.cs.ListResources(ctx, nil)
	if err != nil || len(lr.Resources) != 1 || lr.Resources[0].URI != "agentty://sessions" {
		t.Fatalf("resources/list: %v %+v", err, lr)
	}
	tr, err := c.cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tr.ResourceTemplates) != 3 {
		t.Fatalf("resources/templates/list: %v %+v", err, tr)
	}
	var tmpls []string
	for _, x := range tr.ResourceTemplates {
		tmpls = append(tmpls, x.URITemplate)
	}
	if got := strings.Join(tmpls, " "); got != "agentty://sessions/{session_id} agentty://sessions/{session_id}/output agentty://sessions/{session_id}/screen" {
		t.Fatalf("templates %s", got)
	}

	r := c.start(map[string]any{"command": "cat", "timeout_ms": 0})
	id := r.SessionID
	c.call("send_input", map[string]any{"session_id": id, "text": "hello resource", "enter": true, "until": "hello resource"}, nil)
	read := func(uri string) string {
		t.Helper()
		res, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("read %s: %v", uri, err)
		}
		return res.Contents[0].Text
	}
	var info SessionInfo
	if err := json.Unmarshal([]byte(read("agentty://sessions/"+id)), &info); err != nil || info.ID != id || info.Command != "cat" {
		t.Fatalf("info %+v: %v", info, err)
	}
	var list ListResult
	if err := json.Unmarshal([]byte(read("agentty://sessions")), &list); err != nil || list.Count != 1 || list.Sessions[0].ID != id {
		t.Fatalf("list %+v: %v", list, err)
	}
	if out := read("agentty://sessions/" + id + "/output"); !strings.Contains(out, "hello resource") {
		t.Fatalf("output %q", out)
	}
	if scr := read("agentty://sessions/" + id + "/screen"); !strings.Contains(scr, "hello resource") {
		t.Fatalf("screen %q", scr)
	}
	if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "agentty://sessions/nope"}); err == nil {
		t.Fatal("reading an unknown session succeeded")
	}

	infoURI, listURI := "agentty://sessions/"+id, "agentty://sessions"
	for _, uri := range []string{infoURI, listURI} {
		if err := c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	awaitWatching(t, mgr, 1)
	// (A 2025 client: the SDK's 2026-07-28 Subscribe does not report the
	// server's refusal.)
	old := connect(t, mgr, srv, "old", nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}, nil)
	for uri, want := range map[string]string{"agentty://sessions/cat": infoURI, "agentty://sessions/nope": "not found"} {
		if err := old.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("subscribing to %s: %v, want an error with %q", uri, err, want)
		}
	}
	// New output.
	n := u.count(infoURI)
	c.call("send_input", map[string]any{"session_id": id, "text": "more", "enter": true, "until": "more", "timeout_ms": 5000}, nil)
	n = u.await(t, infoURI, n)
	// Coalesced: 2 s of output every 10 ms is at most 4 a second.
	s2 := c.start(map[string]any{"command": "for i in $(seq 200); do echo line $i; sleep 0.01; done; cat", "timeout_ms": 0})
	if err := c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "agentty://sessions/" + s2.SessionID + "/output"}); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	c.call("read_output", map[string]any{"session_id": s2.SessionID, "until": "line 200", "return_on": []string{"match"}, "timeout_ms": 30000}, nil)
	if got, most := u.count("agentty://sessions/"+s2.SessionID+"/output"), int(time.Since(began)/notifyEvery)+2; got < 1 || got > most {
		t.Errorf("%d notifications for %v of streaming output, want 1..%d", got, time.Since(began), most)
	}
	// The list changed (a session started).
	u.await(t, listURI, 0)
	// Exit.
	c.call("terminate_process", map[string]any{"session_id": id, "force": true}, nil)
	n = u.await(t, infoURI, n)
	// Unsubscribed: no more, and the watchers end.
	if err := c.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "agentty://sessions/" + s2.SessionID + "/output"}); err != nil {
		t.Fatal(err)
	}
	awaitWatching(t, mgr, 0)
	m := u.count("agentty://sessions/" + s2.SessionID + "/output")
	c.call("send_input", map[string]any{"session_id": s2.SessionID, "text": "after", "enter": true, "until": "after"}, nil)
	time.Sleep(3 * notifyEvery) // proving an absence: a notification would have come by now
	if got := u.count("agentty://sessions/" + s2.SessionID + "/output"); got != m {
		t.Errorf("%d notifications after unsubscribe", got-m)
	}
	_ = n
}

func TestResources_DisconnectEndsSubscriptions(t *testing.T) {
	u := newUpdates()
	mgr := session.NewManager(session.Config{})
	srv := New(mgr, withEngine(mgr, nil))
	c := connect(t, mgr, srv, "test", &mcp.ClientOptions{ResourceUpdatedHandler: u.handler}, nil, nil)
	r := c.start(map[string]any{"command": "cat", "timeout_ms": 0})
	if err := c.cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "agentty://sessions/" + r.SessionID}); err != nil {
		t.Fatal(err)
	}
	awaitWatching(t, mgr, 1)
	c.cs.Close()
	awaitWatching(t, mgr, 0)
}
