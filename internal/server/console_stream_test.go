package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agentty/agentty/internal/console/api"
	"github.com/agentty/agentty/internal/console/client"
	"github.com/agentty/agentty/internal/store"
	"github.com/agentty/agentty/internal/toolcall"
)

// streamReader collects one stream's output and events on its own
// goroutine, so a test waits for what it expects with a deadline.
type streamReader struct {
	t      *testing.T
	out    strings.Builder
	events []api.Event
	end    error
	msgs   chan func()
}

func readStream(t *testing.T, ctx context.Context, st *client.Stream) *streamReader {
	r := &streamReader{t: t, msgs: make(chan func(), 1024)}
	go func() {
		for {
			m, err := st.Recv(ctx)
			r.msgs <- func() {
				switch {
				case err != nil:
					r.end = err
				case m.Channel != 0:
					r.out.Write(m.Data)
				default:
					r.events = append(r.events, m.Event)
				}
			}
			if err != nil {
				close(r.msgs)
				return
			}
		}
	}()
	return r
}

// waitFor applies messages until ok holds, failing after a minute.
func (r *streamReader) waitFor(what string, ok func() bool) {
	r.t.Helper()
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	for !ok() {
		select {
		case f, open := <-r.msgs:
			if !open {
				r.t.Fatalf("stream ended waiting for %s (output %q, events %+v, end %v)", what, r.out.String(), r.events, r.end)
			}
			f()
		case <-deadline.C:
			r.t.Fatalf("timed out waiting for %s (output %q, events %+v)", what, r.out.String(), r.events)
		}
	}
}

func (r *streamReader) waitOutput(s string) {
	r.t.Helper()
	r.waitFor("output "+s, func() bool { return strings.Contains(r.out.String(), s) })
}

// waitEvent waits for an event matching ok after the first skip events.
func (r *streamReader) waitEvent(what string, skip int, ok func(api.Event) bool) int {
	r.t.Helper()
	found := -1
	r.waitFor(what, func() bool {
		for i := skip; i < len(r.events); i++ {
			if ok(r.events[i]) {
				found = i
				return true
			}
		}
		return false
	})
	return found
}

func TestConsole_StreamLease(t *testing.T) {
	c := startConsole(t, 0)
	id := c.python(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := c.client(t)

	wst, err := cl.Stream(ctx, id, "web", true)
	if err != nil {
		t.Fatal(err)
	}
	watcher := readStream(t, ctx, wst)
	watcher.waitEvent("state", 0, func(e api.Event) bool { return e.Type == "state" && e.Mode == "pty" && e.Rows > 0 && e.Watch })
	watcher.waitOutput(">>> ")

	ast, err := cl.Stream(ctx, id, "attach", false)
	if err != nil {
		t.Fatal(err)
	}
	person := readStream(t, ctx, ast)
	person.waitOutput(">>> ")
	if err := ast.Keys(ctx, []byte("print(6*7)\r")); err != nil {
		t.Fatal(err)
	}
	person.waitOutput("42\r\n>>> ")
	taken := watcher.waitEvent("lease taken", 0, func(e api.Event) bool { return e.Type == "lease" && e.Holder == "attach" })

	t.Run("agent refused while the person types", func(t *testing.T) {
		_, err := toolcall.Checked(ctx, c.agent, "send_input", map[string]any{"session_id": id, "text": "print(1)", "enter": true}, nil)
		want := "a person is typing in session " + id + " via attach; read_output still works; the lease ends 30 s after their last key or when they detach"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("send_input = %v, want %q", err, want)
		}
		var info struct {
			Holder string `json:"holder"`
		}
		call(t, c.agent, "get_session_info", map[string]any{"session_id": id}, &info)
		if info.Holder != "attach" {
			t.Errorf("get_session_info holder = %q, want attach", info.Holder)
		}
		var read struct {
			Output string `json:"output"`
		}
		call(t, c.agent, "read_output", map[string]any{"session_id": id, "timeout_ms": 0}, &read)
		if !strings.Contains(read.Output, "42") {
			t.Errorf("read_output while leased = %q", read.Output)
		}
	})
	t.Run("a watcher cannot type", func(t *testing.T) {
		if err := wst.Keys(ctx, []byte("x")); err != nil {
			t.Fatal(err)
		}
		watcher.waitEvent("refusal", 0, func(e api.Event) bool { return e.Type == "error" && strings.HasPrefix(e.Error, "read-only") })
	})

	// Detaching hands the keyboard back.
	if err := ast.Close(); err != nil {
		t.Fatal(err)
	}
	watcher.waitEvent("lease released", taken+1, func(e api.Event) bool { return e.Type == "lease" && e.Holder == "" })
	var sent struct {
		Output string `json:"output"`
	}
	call(t, c.agent, "send_input", map[string]any{"session_id": id, "text": "print(7*6)", "enter": true, "until": ">>> "}, &sent)
	if !strings.Contains(sent.Output, "42") {
		t.Errorf("send_input after detach = %q", sent.Output)
	}

	t.Run("transcript and audit say who typed", func(t *testing.T) {
		msgs, _, err := c.s.store.Messages(id, store.MessageQuery{Limit: 1000, Preview: 100})
		if err != nil {
			t.Fatal(err)
		}
		var inputs, leases []string
		for _, m := range msgs {
			switch {
			case m.Type == "input":
				inputs = append(inputs, m.From+":"+string(m.Content))
			case m.Event == "lease":
				leases = append(leases, string(m.Content))
			}
		}
		if want := []string{"attach:print(6*7)\r", "agent:print(7*6)\r"}; strings.Join(inputs, "|") != strings.Join(want, "|") {
			t.Errorf("inputs = %q, want %q", inputs, want)
		}
		if want := []string{"taken by attach", "released by attach: detached"}; strings.Join(leases, "|") != strings.Join(want, "|") {
			t.Errorf("lease events = %q, want %q", leases, want)
		}
		var got []string
		for _, e := range auditLines(t, c.audit, "lease") {
			got = append(got, e["client"].(string)+" "+e["detail"].(map[string]any)["lease"].(string))
		}
		if want := "attach taken|attach released"; strings.Join(got, "|") != want {
			t.Errorf("audit lease events = %q, want %q", got, want)
		}
	})

	t.Run("exit ends the stream", func(t *testing.T) {
		call(t, c.agent, "send_input", map[string]any{"session_id": id, "text": "exit(5)", "enter": true}, nil)
		watcher.waitEvent("exit", 0, func(e api.Event) bool { return e.Type == "exit" && e.ExitCode != nil && *e.ExitCode == 5 })
		watcher.waitFor("close", func() bool { return watcher.end != nil })
		if code, reason := client.CloseReason(watcher.end); code != websocket.StatusNormalClosure || reason != "session ended" {
			t.Errorf("close = %v %q", code, reason)
		}
	})
}

func TestConsole_LeaseExpires(t *testing.T) {
	// Long enough for the refusal below to happen while it holds, on a
	// loaded machine.
	c := startConsole(t, 3*time.Second)
	id := c.python(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl := c.client(t)
	st, err := cl.Stream(ctx, id, "web", false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.CloseNow()
	r := readStream(t, ctx, st)
	if err := st.Send(ctx, api.Event{Type: "take"}); err != nil {
		t.Fatal(err)
	}
	// The take may be handled before the first event, which then says so.
	i := r.waitEvent("taken", 0, func(e api.Event) bool { return (e.Type == "lease" || e.Type == "state") && e.Holder == "web" })
	_, err = toolcall.Checked(ctx, c.agent, "send_input", map[string]any{"session_id": id, "text": "1"}, nil)
	if err == nil || !strings.Contains(err.Error(), "via web") {
		t.Errorf("send_input while held = %v", err)
	}
	// Nobody types: the lease ends by itself.
	r.waitEvent("expired", i+1, func(e api.Event) bool { return e.Type == "lease" && e.Holder == "" })
	call(t, c.agent, "send_input", map[string]any{"session_id": id, "text": "print(2+2)", "enter": true, "until": ">>> "}, nil)
	if err := st.Send(ctx, api.Event{Type: "take"}); err != nil {
		t.Fatal(err)
	}
	j := r.waitEvent("taken again", i+2, func(e api.Event) bool { return e.Type == "lease" && e.Holder == "web" })
	if err := st.Send(ctx, api.Event{Type: "release"}); err != nil {
		t.Fatal(err)
	}
	r.waitEvent("released", j+1, func(e api.Event) bool { return e.Type == "lease" && e.Holder == "" })
}

// exec_command into a shell a person holds is refused the same way, and
// leaves the shell free for the next command once the person lets go.
func TestConsole_LeaseRefusesExecCommand(t *testing.T) {
	c := startConsole(t, 0)
	var sh struct {
		SessionID string `json:"session_id"`
	}
	call(t, c.agent, "open_shell", map[string]any{"shell": "bash", "no_rc": true}, &sh)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := c.client(t).Stream(ctx, sh.SessionID, "web", false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.CloseNow()
	r := readStream(t, ctx, st)
	if err := st.Send(ctx, api.Event{Type: "take"}); err != nil {
		t.Fatal(err)
	}
	i := r.waitEvent("taken", 0, func(e api.Event) bool { return (e.Type == "lease" || e.Type == "state") && e.Holder == "web" })
	_, err = toolcall.Checked(ctx, c.agent, "exec_command", map[string]any{"session_id": sh.SessionID, "command": "echo hi"}, nil)
	if want := "a person is typing in session " + sh.SessionID + " via web; read_output still works"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("exec_command while held = %v, want %q", err, want)
	}
	if err := st.Send(ctx, api.Event{Type: "release"}); err != nil {
		t.Fatal(err)
	}
	r.waitEvent("released", i+1, func(e api.Event) bool { return e.Type == "lease" && e.Holder == "" })
	var res struct {
		Output   string `json:"output"`
		ExitCode *int   `json:"exit_code"`
	}
	call(t, c.agent, "exec_command", map[string]any{"session_id": sh.SessionID, "command": "echo hi"}, &res)
	if res.Output != "hi\n" || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Errorf("exec_command after release = %+v", res)
	}
}
