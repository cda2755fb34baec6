package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/session"
)

// appsClient declares the MCP Apps extension, as Claude, ChatGPT, VS Code,
// Cursor and Goose do.
var appsClient = &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
	Extensions: map[string]any{AppsExtension: map[string]any{"mimeTypes": []string{AppMIME}}}}}

// wiredClient connects a client with options co to a fresh server and
// returns the transport that records what the server writes.
func wiredClient(t *testing.T, co *mcp.ClientOptions) (*recordingTransport, *mcp.ClientSession, *session.Manager) {
	t.Helper()
	wire := &recordingTransport{}
	mgr := session.NewManager(session.Config{})
	srv := New(mgr, withEngine(mgr, &Options{Hosts: noHosts{}}))
	st, ct := mcp.NewInMemoryTransports()
	wire.Transport = st
	ss, err := srv.Connect(context.Background(), wire, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "wired", Version: "1"}, co).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait(); mgr.Close() })
	return wire, cs, mgr
}

// listWire returns the tools/list reply as the server wrote it, for a
// client with options co.
func listWire(t *testing.T, co *mcp.ClientOptions) (reply []byte, tools []*mcp.Tool, init *mcp.InitializeResult) {
	t.Helper()
	wire, cs, _ := wiredClient(t, co)
	tl, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range wire.written() {
		if bytes.Contains(msg, []byte(`"tools":[`)) {
			reply = msg
		}
	}
	if reply == nil {
		t.Fatal("no tools/list reply seen on the wire")
	}
	return reply, tl.Tools, cs.InitializeResult()
}

// TestApps_Declared: what a client sees with and without the extension.
// Without it, TestToolsList_Golden holds tools/list byte for byte; here,
// every trace of the app is checked absent.
func TestApps_Declared(t *testing.T) {
	t.Run("without the extension", func(t *testing.T) {
		reply, tools, init := listWire(t, nil)
		if init.Capabilities.Extensions != nil {
			t.Errorf("initialize declares extensions %v to a client that declared none", init.Capabilities.Extensions)
		}
		for _, tool := range tools {
			if appOnly[tool.Name] || tool.Meta != nil {
				t.Errorf("tool %s (meta %v) listed to a client without the extension", tool.Name, tool.Meta)
			}
		}
		if bytes.Contains(reply, []byte("ui://")) || bytes.Contains(reply, []byte(`"visibility"`)) {
			t.Errorf("tools/list names the app: %s", reply)
		}
		t.Logf("tools/list without the extension: %d bytes, %d tools", len(reply), len(tools))
	})
	t.Run("with the extension", func(t *testing.T) {
		reply, tools, init := listWire(t, appsClient)
		if _, ok := init.Capabilities.Extensions[AppsExtension]; !ok {
			t.Errorf("initialize does not declare %s: %v", AppsExtension, init.Capabilities.Extensions)
		}
		shown, only := 0, 0
		for _, tool := range tools {
			b, _ := json.Marshal(tool.Meta)
			switch {
			case appShown[tool.Name]:
				shown++
				if string(b) != `{"ui":{"resourceUri":"ui://agentty/terminal","visibility":["model"]}}` {
					t.Errorf("%s: _meta %s, want the app's resourceUri", tool.Name, b)
				}
			case appOnly[tool.Name]:
				only++
				if string(b) != `{"ui":{"visibility":["app"]}}` {
					t.Errorf("%s: _meta %s, want visibility [app]", tool.Name, b)
				}
			case string(b) != `{"ui":{"visibility":["model"]}}`:
				t.Errorf("%s: _meta %s, want visibility [model]: the app may not call it", tool.Name, b)
			}
		}
		if shown != len(appShown) || only != len(appOnly) {
			t.Errorf("%d tools name the app and %d are app-only, want %d and %d", shown, only, len(appShown), len(appOnly))
		}
		t.Logf("tools/list with the extension: %d bytes, %d tools", len(reply), len(tools))
	})
}

// TestApps_HiddenTools: a client without the extension can neither list
// nor call the app's tools and resource, and one with it can.
func TestApps_HiddenTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		co   *mcp.ClientOptions
		want bool
	}{{"without the extension", nil, false}, {"with the extension", appsClient, true}} {
		t.Run(tc.name, func(t *testing.T) {
			mgr := session.NewManager(session.Config{})
			c := connect(t, mgr, New(mgr, withEngine(mgr, &Options{Hosts: noHosts{}})), "apps", tc.co, nil, nil)
			ctx := context.Background()
			rl, err := c.cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			listed := false
			for _, r := range rl.Resources {
				listed = listed || r.URI == AppURI
			}
			if listed != tc.want {
				t.Errorf("resources/list has %s: %v, want %v", AppURI, listed, tc.want)
			}
			r := c.start(map[string]any{"command": "cat"})
			_, err = c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "app_view", Arguments: map[string]any{"session_id": r.SessionID, "offset": 0}})
			if tc.want && err != nil {
				t.Errorf("app_view: %v", err)
			}
			if !tc.want && (err == nil || !strings.Contains(err.Error(), `unknown tool "app_view"`)) {
				t.Errorf("app_view from a client without the extension: %v, want unknown tool", err)
			}
		})
	}
}

// TestApp_HTML: the app is one document whose scripts are exactly those
// its CSP admits, that loads nothing from the network, with the web
// view's xterm.js.
func TestApp_HTML(t *testing.T) {
	html := appHTML()
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(html)
	if csp == nil {
		t.Fatal("no CSP meta in the app")
	}
	for _, want := range []string{"default-src 'none'", "connect-src 'none'", "frame-src 'none'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(csp[1], want) {
			t.Errorf("CSP %q lacks %q", csp[1], want)
		}
	}
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(html, -1)
	if len(scripts) != len(appScripts) {
		t.Fatalf("%d inline scripts, want %d", len(scripts), len(appScripts))
	}
	hashes := regexp.MustCompile(`'sha256-([^']+)'`).FindAllStringSubmatch(csp[1], -1)
	if len(hashes) != len(scripts) {
		t.Fatalf("CSP admits %d scripts, the page has %d", len(hashes), len(scripts))
	}
	for i, s := range scripts {
		sum := sha256.Sum256([]byte(s[1]))
		if got := base64.StdEncoding.EncodeToString(sum[:]); got != hashes[i][1] {
			t.Errorf("script %d (%s): hash %s, CSP admits %s", i, appScripts[i], got, hashes[i][1])
		}
	}
	if n := strings.Count(html, "<script"); n != len(appScripts) {
		t.Errorf("%d <script elements, want %d inline ones", n, len(appScripts))
	}
	if regexp.MustCompile(`(?i)<(link|img|iframe)\b|\bsrc=`).MatchString(html) {
		t.Error("the app loads something by URL")
	}
	for _, f := range []string{"xterm.js", "xterm.css"} {
		web, err := os.ReadFile("../web/assets/vendor/xterm/" + f)
		if err != nil {
			t.Fatal(err)
		}
		app, err := appFilesOrVendor(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(web, app) {
			t.Errorf("app/vendor/xterm/%s differs from the web view's: run scripts/vendor-ext-apps", f)
		}
	}
	t.Logf("app document: %d bytes", len(html))
}

func appFilesOrVendor(name string) ([]byte, error) { return os.ReadFile("app/vendor/xterm/" + name) }

// TestAppInput_Lease: a person typing in the app takes the keyboard as
// attach and the web view do, so the agent's send_input is refused naming
// them; handing it back lets the agent type again. A secret goes only to
// a no-echo prompt and comes back in no result.
func TestAppInput_Lease(t *testing.T) {
	mgr := session.NewManager(session.Config{})
	c := connect(t, mgr, New(mgr, withEngine(mgr, &Options{Hosts: noHosts{}})), "apps", appsClient, nil, nil)
	r := c.start(map[string]any{"argv": []string{"bash", "-c", `read -s -p "Secret: " s; echo; echo "got ${#s} chars"; read -p "line: " l; echo "line=$l"`}})
	t.Run("secret at a no-echo prompt", func(t *testing.T) {
		var v AppView
		deadline := time.Now().Add(20 * time.Second)
		for v.State != "awaiting_password" {
			if time.Now().After(deadline) {
				t.Fatalf("the app's view never showed the password prompt: %+v", v)
			}
			args := map[string]any{"session_id": r.SessionID, "offset": v.Next, "state": v.State, "wait_ms": 5000}
			v = AppView{}
			c.on(t).call("app_view", args, &v)
		}
		const secret = "hunter2-app-secret"
		var in AppInputResult
		res := c.on(t).call("app_input", map[string]any{"session_id": r.SessionID, "secret": secret}, &in)
		if in.Holder != appHolder || in.Bytes != len(secret)+1 {
			t.Errorf("app_input: %+v, want holder %q and %d bytes", in, appHolder, len(secret)+1)
		}
		out := c.on(t).call("read_output", map[string]any{"session_id": r.SessionID, "until": "line: ", "return_on": []string{"match"}}, nil)
		b, _ := json.Marshal([]any{res, out})
		if !strings.Contains(string(b), "got 18 chars") {
			t.Errorf("the program did not get the secret: %s", b)
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("a result carries the secret: %s", b)
		}
	})
	t.Run("secret refused where it would echo", func(t *testing.T) {
		msg := c.on(t).toolError("app_input", map[string]any{"session_id": r.SessionID, "secret": "x"})
		if !strings.Contains(msg, "not at a no-echo prompt") {
			t.Errorf("got %q", msg)
		}
	})
	t.Run("the agent is refused while the person types", func(t *testing.T) {
		c.on(t).call("app_input", map[string]any{"session_id": r.SessionID, "data": "from the person"}, nil)
		msg := c.on(t).toolError("send_input", map[string]any{"session_id": r.SessionID, "text": "from the agent", "enter": true})
		want := "a person is typing in session " + r.SessionID + " via chat; read_output still works"
		if !strings.Contains(msg, want) {
			t.Errorf("send_input while the person types: %q, want %q", msg, want)
		}
	})
	t.Run("the agent types once the keyboard is handed back", func(t *testing.T) {
		var in AppInputResult
		c.on(t).call("app_input", map[string]any{"session_id": r.SessionID, "release": true}, &in)
		if in.Holder != "" {
			t.Errorf("holder %q after release", in.Holder)
		}
		var sr struct {
			Output string `json:"output"`
		}
		c.on(t).call("send_input", map[string]any{"session_id": r.SessionID, "text": " and the agent", "enter": true, "return_on": []string{"exit"}}, &sr)
		if !strings.Contains(sr.Output, "line=from the person and the agent") {
			t.Errorf("send_input after release: %q", sr.Output)
		}
	})
}

// TestAppView_Wait: a waiting view returns at new output, at a change of
// the keyboard's holder, or at its deadline with nothing new.
func TestAppView_Wait(t *testing.T) {
	mgr := session.NewManager(session.Config{})
	c := connect(t, mgr, New(mgr, withEngine(mgr, &Options{Hosts: noHosts{}})), "apps", appsClient, nil, nil)
	r := c.start(map[string]any{"argv": []string{"cat"}})
	view := func(t *testing.T, args map[string]any) (AppView, time.Duration) {
		var v AppView
		start := time.Now()
		c.on(t).call("app_view", args, &v)
		return v, time.Since(start)
	}
	// settled is the view once cat waits for input with all it wrote read.
	settled := func(t *testing.T) AppView {
		v := AppView{Next: -1}
		deadline := time.Now().Add(20 * time.Second)
		for v.State != "awaiting_input" || v.Data != "" {
			if time.Now().After(deadline) {
				t.Fatalf("cat never settled: %+v", v)
			}
			args := map[string]any{"session_id": r.SessionID, "offset": v.Next, "state": v.State, "wait_ms": 2000}
			v = AppView{}
			c.on(t).call("app_view", args, &v)
		}
		return v
	}
	first := settled(t)
	t.Run("new output", func(t *testing.T) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.on(t).call("send_input", map[string]any{"session_id": r.SessionID, "text": "ping", "enter": true, "timeout_ms": 0}, nil)
		}()
		v, took := view(t, map[string]any{"session_id": r.SessionID, "offset": first.Next, "state": first.State, "wait_ms": 15000})
		<-done
		b, _ := base64.StdEncoding.DecodeString(v.Data)
		if !strings.Contains(string(b), "ping") || took > 10*time.Second {
			t.Errorf("after %v the view has %q, want ping's echo", took, b)
		}
		first = settled(t)
	})
	t.Run("holder changes", func(t *testing.T) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.on(t).call("app_input", map[string]any{"session_id": r.SessionID}, nil)
		}()
		v, took := view(t, map[string]any{"session_id": r.SessionID, "offset": first.End, "state": first.State, "wait_ms": 15000})
		<-done
		if v.Holder != appHolder || took > 10*time.Second {
			t.Errorf("after %v the view's holder is %q, want %q", took, v.Holder, appHolder)
		}
		c.on(t).call("app_input", map[string]any{"session_id": r.SessionID, "release": true}, nil)
	})
	t.Run("deadline", func(t *testing.T) {
		v, took := view(t, map[string]any{"session_id": r.SessionID, "offset": first.End, "state": first.State, "wait_ms": 300})
		if took < 300*time.Millisecond || v.Data != "" || v.Next != first.End {
			t.Errorf("after %v the view is %+v, want nothing new after 300 ms", took, v)
		}
	})
}
