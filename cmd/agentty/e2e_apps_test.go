package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/web/browsertest"
)

// appHost is a chat host as MCP Apps clients are, in two real parts: the
// MCP client is a go-sdk ClientSession connected to agentty serve that
// declares the extension, and the page (testdata/apphost) mounts the app
// the ext-apps AppBridge way in a sandboxed frame of headless Chromium,
// relaying the app's tool calls to that client. Every tool result either
// side receives is kept, to check what a secret could have leaked into.
type appHost struct {
	t   *testing.T
	s   *server
	tab context.Context

	mu      sync.Mutex
	results []string // every tool result, as JSON; guarded by mu
	closed  bool     // no relay starts once set; guarded by mu
	relays  sync.WaitGroup

	// frame is the app's frame, attached as its own target: Chromium runs
	// a sandboxed frame in a process of its own. Set by show.
	frame  context.Context
	detach context.CancelFunc
	seen   map[target.ID]bool // app frames mounted before
}

func newAppHost(t *testing.T) *appHost {
	tab := browsertest.New(t)
	co := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
		Extensions: map[string]any{mcpserver.AppsExtension: map[string]any{"mimeTypes": []string{mcpserver.AppMIME}}}}}
	h := &appHost{t: t, s: startServerClient(t, nil, co, nil), tab: tab, seen: map[target.ID]bool{}}
	t.Cleanup(func() {
		if h.detach != nil {
			h.detach()
		}
	})
	files := http.FileServer(http.Dir(filepath.Join("testdata", "apphost")))
	site := httptest.NewServer(files)
	t.Cleanup(site.Close)
	relayCtx, cancel := context.WithCancel(context.Background())
	// Runs first (cleanups are last in, first out): ends the app's waiting
	// calls before the server and the browser go.
	t.Cleanup(func() {
		h.mu.Lock()
		h.closed = true
		h.mu.Unlock()
		cancel()
		h.relays.Wait()
	})
	chromedp.ListenTarget(tab, func(ev any) {
		b, ok := ev.(*runtime.EventBindingCalled)
		if !ok || b.Name != "agenttyCall" {
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.closed {
			return
		}
		h.relays.Add(1)
		go func() { defer h.relays.Done(); h.relay(relayCtx, b.Payload) }()
	})
	if err := chromedp.Run(tab, runtime.AddBinding("agenttyCall"), chromedp.Navigate(site.URL+"/host.html")); err != nil {
		t.Fatal(err)
	}
	return h
}

// relay runs one call of the app through the MCP client and answers the page.
func (h *appHost) relay(ctx context.Context, payload string) {
	var req struct {
		ID     int                 `json:"id"`
		Method string              `json:"method"`
		Params *mcp.CallToolParams `json:"params"`
	}
	ok, answer := false, ""
	if err := json.Unmarshal([]byte(payload), &req); err != nil || req.Method != "tools/call" {
		answer = fmt.Sprintf("the test host relays tools/call only, not %q (%v)", req.Method, err)
	} else if res, err := h.s.cs.CallTool(ctx, req.Params); err != nil {
		answer = err.Error()
	} else {
		b, _ := json.Marshal(res)
		h.keep(string(b))
		ok, answer = true, string(b)
	}
	if ctx.Err() != nil {
		return
	}
	js := fmt.Sprintf("hostReply(%d, %v, %s)", req.ID, ok, answer)
	if !ok {
		js = fmt.Sprintf("hostReply(%d, false, %s)", req.ID, browsertest.Quote(answer))
	}
	_ = chromedp.Run(h.tab, chromedp.Evaluate(js, nil))
}

func (h *appHost) keep(s string) {
	h.mu.Lock()
	h.results = append(h.results, s)
	h.mu.Unlock()
}

// call is the agent's call (the model's, in a real host).
func (h *appHost) call(t *testing.T, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := h.s.try(name, args, out)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res)
	h.keep(string(b))
	return res
}

// show calls a tool the app is shown for, reads the resource its
// _meta.ui.resourceUri names, and mounts it with the call's arguments and
// result, as a host does.
func (h *appHost) show(t *testing.T, uri, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res := h.call(t, name, args, out)
	if res.IsError {
		t.Fatalf("%s: %s", name, allText(res))
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	rr, err := h.s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].MIMEType != mcpserver.AppMIME {
		t.Fatalf("resources/read %s: %v %+v", uri, err, rr)
	}
	a, _ := json.Marshal(args)
	r, _ := json.Marshal(res)
	html, _ := json.Marshal(rr.Contents[0].Text)
	if err := chromedp.Run(h.tab, chromedp.Evaluate(fmt.Sprintf("mount(%s, %s, %s)", html, a, r), nil,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatalf("mount: %v", err)
	}
	browsertest.WaitJS(t, h.tab, 20*time.Second, `window.appReady === true`, `document.body.innerText`)
	h.attach(t)
	return res
}

// attach makes the frame just mounted h.frame.
func (h *appHost) attach(t *testing.T) {
	t.Helper()
	targets, err := chromedp.Targets(h.tab)
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range targets {
		if ti.Type != "iframe" || h.seen[ti.TargetID] {
			continue
		}
		h.seen[ti.TargetID] = true
		if h.detach != nil {
			h.detach()
		}
		h.frame, h.detach = chromedp.NewContext(h.tab, chromedp.WithTargetID(ti.TargetID))
		return
	}
	t.Fatalf("no new app frame among the browser's targets %v", targets)
}

// frameEval evaluates expr in the app's frame and decodes its value into out.
func (h *appHost) frameEval(expr string, out any) error {
	if h.frame == nil {
		return errors.New("no app frame")
	}
	return chromedp.Run(h.frame, chromedp.Evaluate(expr, out))
}

// focus gives the keyboard to the element sel of the app's frame, as a
// person's click does, and waits until it has it: keys typed before would
// go elsewhere.
func (h *appHost) focus(t *testing.T, sel string) {
	t.Helper()
	if err := chromedp.Run(h.tab, chromedp.Click("iframe", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	q := `document.querySelector(` + browsertest.Quote(sel) + `)`
	if err := h.frameEval(q+`.focus()`, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(t, `document.hasFocus() && document.activeElement === `+q, `'focus is on ' + document.activeElement.outerHTML.slice(0, 120) + ', document focused: ' + document.hasFocus()`)
}

// appRows is the text of the app's terminal, one line per row.
const appRows = `[...document.querySelectorAll('#term .xterm-rows > div')].map(d => d.textContent).join('\n')`

// waitFrame waits until expr (a boolean) holds in the app's frame.
func (h *appHost) waitFrame(t *testing.T, expr, show string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for {
		var ok bool
		err := h.frameEval(expr, &ok)
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			var shown string
			serr := h.frameEval(show, &shown)
			var host string
			_ = chromedp.Run(h.tab, chromedp.Evaluate(`document.body.innerText`, &host))
			t.Fatalf("the app never satisfied %s (last error %v); it shows (%v):\n%s\nthe host page shows:\n%s", expr, err, serr, shown, host)
		}
		<-poll.C
	}
}

// TestApps_ChatHostDrivesTerminal: the test host. An agent starts
// python3 in a client that declares MCP Apps; the host mounts the app the
// call names; the person sees the prompt and types print(6*7) in the
// frame, the agent's send_input is refused naming them, and after they
// hand the keyboard back the agent types again. vim's screen renders, and
// a secret typed into the app's field at a read -s prompt reaches the
// program and no tool result.
func TestApps_ChatHostDrivesTerminal(t *testing.T) {
	t.Parallel()
	h := newAppHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	tl, err := h.s.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	uri := ""
	for _, tool := range tl.Tools {
		if ui, ok := tool.Meta["ui"].(map[string]any); ok && tool.Name == "start_process" {
			uri, _ = ui["resourceUri"].(string)
		}
	}
	if uri != mcpserver.AppURI {
		t.Fatalf("start_process names resource %q, want %q", uri, mcpserver.AppURI)
	}

	t.Run("python", func(t *testing.T) {
		var st readResult
		h.show(t, uri, "start_process", map[string]any{"argv": []string{"python3", "-q"}, "until": ">>> "}, &st)
		h.waitFrame(t, appRows+`.includes('>>>')`, appRows)
		h.focus(t, ".xterm-helper-textarea")
		if err := chromedp.Run(h.tab, browsertest.Type("print(6*7)\r")); err != nil {
			t.Fatal(err)
		}
		h.waitFrame(t, `/^42\s*$/m.test(`+appRows+`)`, appRows)
		h.waitFrame(t, `document.getElementById('holder').textContent === 'keyboard: you'`, `document.getElementById('bar').innerText`)
		browsertest.Screenshot(t, h.tab, "apps-python.png")

		msg := h.s.toolError("send_input", map[string]any{"session_id": st.SessionID, "text": "print(1)", "enter": true})
		if want := "a person is typing in session " + st.SessionID + " via chat"; !strings.Contains(msg, want) {
			t.Errorf("send_input while the person types: %q, want %q", msg, want)
		}
		if err := h.frameEval(`document.getElementById('release').click()`, nil); err != nil {
			t.Fatal(err)
		}
		h.waitFrame(t, `document.getElementById('holder').textContent === 'keyboard: the agent'`, `document.getElementById('bar').innerText`)
		var rd readResult
		if res := h.call(t, "send_input", map[string]any{"session_id": st.SessionID, "text": "print(7*8)", "enter": true, "until": "56"}, &rd); res.IsError {
			t.Fatalf("send_input after the person handed the keyboard back: %s", allText(res))
		}
		if !strings.Contains(rd.Output, "56") {
			t.Errorf("the agent's print(7*8) answered %q", rd.Output)
		}
		h.waitFrame(t, `/^56\s*$/m.test(`+appRows+`)`, appRows)
	})

	t.Run("vim", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "notes.txt")
		if err := os.WriteFile(file, []byte("hello from the app test\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var st readResult
		h.show(t, uri, "start_process", map[string]any{"argv": []string{"vim", "-u", "NONE", "-N", file}, "rows": 24, "cols": 80, "until": "notes.txt"}, &st)
		h.waitFrame(t, appRows+`.includes('hello from the app test') && `+appRows+`.split('\n').filter(l => /^~\s*$/.test(l)).length >= 15`, appRows)
		browsertest.Screenshot(t, h.tab, "apps-vim.png")
		// xterm.js answers vim's terminal queries itself; those answers are
		// not the person typing and must not take the keyboard.
		var info struct {
			Holder string `json:"holder"`
		}
		h.call(t, "get_session_info", map[string]any{"session_id": st.SessionID}, &info)
		if info.Holder != "" {
			t.Errorf("the app took the keyboard (holder %q) while nobody typed", info.Holder)
		}
		if res := h.call(t, "send_input", map[string]any{"session_id": st.SessionID, "text": ":q!", "enter": true, "return_on": []string{"exit"}}, nil); res.IsError {
			t.Errorf("the agent may not type into vim nobody typed into: %s", allText(res))
		}
	})

	t.Run("secret", func(t *testing.T) {
		const secret = "app-secret-Zq81"
		var st readResult
		h.show(t, uri, "start_process", map[string]any{"argv": []string{"bash", "-c", `read -s -p "Passphrase: " s; echo; echo "got ${#s} chars"; sleep 60`}, "until": "Passphrase: "}, &st)
		h.waitFrame(t, `!document.getElementById('secret').hidden && document.activeElement === document.getElementById('secret-field')`, `document.body.innerText`)
		browsertest.Screenshot(t, h.tab, "apps-secret-field.png")
		h.focus(t, "#secret-field")
		if err := chromedp.Run(h.tab, browsertest.Type(secret+"\r")); err != nil {
			t.Fatal(err)
		}
		h.waitFrame(t, appRows+`.includes('got `+fmt.Sprint(len(secret))+` chars')`, appRows)
		browsertest.Screenshot(t, h.tab, "apps-secret.png")
		var rd readResult
		h.call(t, "read_output", map[string]any{"session_id": st.SessionID, "until": "chars"}, &rd)
		h.call(t, "get_history", map[string]any{"session_id": st.SessionID}, nil)
		h.mu.Lock()
		defer h.mu.Unlock()
		views := 0
		for _, r := range h.results {
			if strings.Contains(r, secret) {
				t.Errorf("a tool result carries the secret: %s", r)
			}
			views += len(regexp.MustCompile(`"holder":`).FindAllString(r, -1))
		}
		if views == 0 {
			t.Error("no app result was seen: the relay is not what ran the app")
		}
	})
}
