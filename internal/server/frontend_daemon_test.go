package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/daemon"
	"github.com/agentty/agentty/internal/logbuf"
	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/toolcall"
)

// daemonUnderTest is a Server serving a Daemon front end on a socket of
// the test's own.
type daemonUnderTest struct {
	srv    *Server
	socket string
	served chan error
	cancel context.CancelFunc
	seen   chan Activity // each activity the front end looked at, when nobody waits: dropped
	fast   atomic.Bool   // the daemon's clock moves an hour at each reading, else stands still
}

// startDaemon serves a Daemon exiting after idle, on a clock that stands
// still until d.fast is set; then an idle daemon leaves at its first look.
func startDaemon(t *testing.T, idle time.Duration) *daemonUnderTest {
	t.Helper()
	dir, err := os.MkdirTemp("", "agentty-daemon-srv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "run", daemon.SocketName)
	var log logbuf.Buffer
	srv, err := New(Config{Version: "test", Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Sessions: &SessionConfig{KillGrace: 500 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := daemon.Listen(socket, nil)
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	d := &daemonUnderTest{srv: srv, socket: socket, served: make(chan error, 1), cancel: cancel, seen: make(chan Activity)}
	activity := func() Activity {
		a := srv.Activity()
		select {
		case d.seen <- a:
		default:
		}
		return a
	}
	var clock time.Time
	var clockMu sync.Mutex
	now := func() time.Time {
		clockMu.Lock()
		defer clockMu.Unlock()
		if d.fast.Load() {
			clock = clock.Add(time.Hour)
		}
		return clock
	}
	go func() {
		d.served <- srv.Serve(ctx, Daemon{Listener: ln, Settings: map[string]string{"k": "v"}, Idle: idle,
			Activity: activity, Ready: func() { close(ready) }, Now: now})
	}()
	<-ready
	t.Cleanup(func() {
		cancel()
		srv.Close()
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	return d
}

// connect opens an MCP client over an upgraded connection.
func (d *daemonUnderTest) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := daemon.Upgrade(ctx, d.socket, "test", daemon.Fingerprint(map[string]string{"k": "v"}))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestDaemon_Protocol(t *testing.T) {
	d := startDaemon(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	t.Run("no upgrade header", func(t *testing.T) {
		c := http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var dl net.Dialer
			return dl.DialContext(ctx, "unix", d.socket)
		}}}
		resp, err := c.Get("http://agentty" + daemon.MCPPath)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUpgradeRequired || resp.Header.Get("Upgrade") != daemon.UpgradeToken {
			t.Errorf("plain GET %s: %s, Upgrade %q", daemon.MCPPath, resp.Status, resp.Header.Get("Upgrade"))
		}
	})
	t.Run("other configuration", func(t *testing.T) {
		_, err := daemon.Upgrade(ctx, d.socket, "test", "0123")
		if !errors.Is(err, daemon.ErrConfigDiffers) {
			t.Fatalf("upgrade with another fingerprint: %v, want ErrConfigDiffers", err)
		}
	})
	t.Run("client directory and activity", func(t *testing.T) {
		cs := d.connect(t)
		wd, _ := os.Getwd()
		res, err := toolcall.Call(ctx, cs, "start_process", map[string]any{"argv": []string{"pwd"}, "mode": "pipe", "return_on": []string{"exit"}}, nil)
		if err != nil || res.IsError {
			t.Fatalf("start_process: %v %s", err, toolcall.Text(res))
		}
		if got := toolcall.Text(res); !strings.Contains(got, wd+"\n") {
			t.Errorf("pwd in a session of a client in %s printed %q", wd, got)
		}
		st, err := daemon.GetStatus(ctx, d.socket)
		if err != nil {
			t.Fatal(err)
		}
		if st.Version != "test" || st.Clients != 1 || st.Sessions != 0 || st.PID != os.Getpid() || st.Settings["k"] != "v" {
			t.Errorf("status %+v", st)
		}
		if err := daemon.Stop(ctx, d.socket); !errors.Is(err, daemon.ErrBusy) || !strings.Contains(err.Error(), "1 client connected") {
			t.Errorf("stop with a client connected: %v, want ErrBusy naming it", err)
		}
		cs.Close()
	})
}

func TestDaemon_StopWhenIdle(t *testing.T) {
	d := startDaemon(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := daemon.Stop(ctx, d.socket); err != nil {
		t.Fatalf("stop an idle daemon: %v", err)
	}
	// Stop returned: the socket is free for another daemon.
	ln, err := daemon.Listen(d.socket, nil)
	if err != nil {
		t.Fatalf("claim the socket after Stop: %v", err)
	}
	ln.Close()
	if err := <-d.served; err != nil {
		t.Errorf("Serve after a stop: %v", err)
	}
}

func TestDaemon_IdleExitWaitsForSessions(t *testing.T) {
	d := startDaemon(t, 50*time.Millisecond)
	cs := d.connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var st struct {
		SessionID string `json:"session_id"`
	}
	if _, err := toolcall.Checked(ctx, cs, "start_process", map[string]any{"argv": []string{"cat"}, "mode": "pipe", "timeout_ms": 0}, &st); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	// A session runs and no client is connected: however many times the
	// daemon looks, and however late its clock says it is, it stays.
	d.fast.Store(true)
	for looks := 0; looks < 3; {
		select {
		case a := <-d.seen:
			if a == (Activity{Sessions: 1}) {
				looks++
			}
		case err := <-d.served:
			t.Fatalf("the daemon stopped with a session running: %v", err)
		case <-ctx.Done():
			t.Fatal("the daemon stopped looking at its activity")
		}
	}
	cs = d.connect(t)
	if _, err := toolcall.Checked(ctx, cs, "send_input", map[string]any{"session_id": st.SessionID, "stdin_eof": true, "timeout_ms": 0}, nil); err != nil {
		t.Fatal(err)
	}
	var info struct {
		State string `json:"state"`
	}
	if _, err := toolcall.Checked(ctx, cs, "read_output", map[string]any{"session_id": st.SessionID, "timeout_ms": 20000, "return_on": []string{"exit"}}, &info); err != nil || info.State != "exited" {
		t.Fatalf("cat did not exit: %v %+v", err, info)
	}
	cs.Close()
	select {
	case err := <-d.served:
		if err != nil {
			t.Errorf("Serve after idle: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the idle daemon did not stop")
	}
	if _, err := os.Stat(d.socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after the idle exit: %v", err)
	}
	_, err := daemon.GetStatus(ctx, d.socket)
	if !errors.Is(err, daemon.ErrNoDaemon) {
		t.Errorf("status after the idle exit: %v, want ErrNoDaemon", err)
	}
}

// TestDaemon_ClientGoneEndsItsCalls: a client that goes away in the middle
// of a long wait is let go at once, not when the wait times out.
func TestDaemon_ClientGoneEndsItsCalls(t *testing.T) {
	d := startDaemon(t, time.Hour) // looks at its activity, never leaves (the clock stands still)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	progressed := make(chan struct{}, 1)
	conn, err := daemon.Upgrade(ctx, d.socket, "test", daemon.Fingerprint(map[string]string{"k": "v"}))
	if err != nil {
		t.Fatal(err)
	}
	waiter, err := mcp.NewClient(&mcp.Implementation{Name: "waiter", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		}}).Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	other := d.connect(t)
	defer other.Close()
	var st struct {
		SessionID string `json:"session_id"`
	}
	if _, err := toolcall.Checked(ctx, other, "start_process", map[string]any{"argv": []string{"cat"}, "mode": "pipe", "timeout_ms": 0}, &st); err != nil {
		t.Fatal(err)
	}
	go func() {
		params := &mcp.CallToolParams{Name: "read_output", Arguments: map[string]any{"session_id": st.SessionID, "timeout_ms": 600000, "until": "never printed", "return_on": []string{"exit", "match"}}}
		params.SetProgressToken("p1")
		_, _ = waiter.CallTool(ctx, params)
	}()
	// Output the wait reports as progress: the wait is in flight.
	for {
		if _, err := toolcall.Checked(ctx, other, "send_input", map[string]any{"session_id": st.SessionID, "text": "tick", "enter": true, "timeout_ms": 0}, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-progressed:
		case <-time.After(mcpserver.ProgressInterval * 4):
			continue
		case <-ctx.Done():
			t.Fatal("no progress from the waiting read_output")
		}
		break
	}
	// The waiting client dies: its connection closes under it.
	conn.Close()
	defer waiter.Close()
	for {
		select {
		case <-d.seen:
			if st, err := daemon.GetStatus(ctx, d.socket); err == nil && st.Clients == 1 {
				return
			}
		case <-ctx.Done():
			t.Fatal("the daemon still serves the client that went away in a 10-minute wait")
		}
	}
}
