package mcpserver

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/logbuf"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/secret"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/store"
)

// protocols are the two generations questions reach people by: "" is the
// newest (multi-round-trip input requests), 2025-06-18 gets
// elicitation/create during the call.
var protocols = []string{"", "2025-06-18"}

// personHarness is a server with everything a secret could leak into: an
// audit log, a transcript store, a debug server log, and its secret pages.
type personHarness struct {
	*client
	dir     string
	log     *logbuf.Buffer
	results []string // every tool result the client saw, as JSON
	mu      sync.Mutex
	audit   string // the audit log's path
	// shutdown closes the client, the sessions, the pages, the store and
	// the audit log, once, so every file is complete.
	shutdown func()
}

// auditEvents reads h's audit log.
func auditEvents(t *testing.T, h *personHarness) []audit.Event {
	t.Helper()
	ev, err := audit.ReadFile(h.audit)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func newPersonHarness(t *testing.T, version string, co *mcp.ClientOptions, o Options) *personHarness {
	t.Helper()
	dir := t.TempDir()
	h := &personHarness{dir: dir, log: &logbuf.Buffer{}}
	logger := slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a, err := audit.Open(filepath.Join(dir, "audit"), &audit.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	h.audit = a.Path()
	st, err := store.Open(filepath.Join(dir, "store"), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pages := secret.New(secret.Options{Logger: logger})
	cfg := session.Config{Logger: logger, OnExit: RecordExit(a, nil), NewLog: st.NewLog, Recorder: st.Recorder(), NextID: st.NextID}
	mgr := session.NewManager(cfg)
	o.Logger, o.Audit, o.Policy, o.Store, o.Secrets = logger, a, p, st, pages
	var once sync.Once
	h.shutdown = func() {
		once.Do(func() {
			h.cs.Close()
			mgr.Close()
			_ = pages.Close()
			if err := st.Close(); err != nil {
				t.Errorf("close store: %v", err)
			}
			_ = a.Close()
		})
	}
	h.client = connect(t, mgr, New(mgr, withEngine(mgr, &o)), "person-test", co, &mcp.ClientSessionOptions{ProtocolVersion: version}, h.shutdown)
	return h
}

// run calls a tool and keeps its result for the leak check.
func (h *personHarness) run(name string, args map[string]any, out any) *mcp.CallToolResult {
	h.t.Helper()
	res, err := h.try(name, args, out)
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	b, _ := res.MarshalJSON()
	h.mu.Lock()
	h.results = append(h.results, string(b))
	h.mu.Unlock()
	if res.IsError {
		h.t.Fatalf("%s: tool error: %s", name, text(res))
	}
	return res
}

// noLeak fails when secret appears in any result, the audit log, the
// store's files (database and segments) or the server log. It shuts the
// server down first, so the store has written everything.
func (h *personHarness) noLeak(t *testing.T, secretText string) {
	t.Helper()
	h.shutdown()
	for _, r := range h.results {
		if strings.Contains(r, secretText) {
			t.Fatalf("secret in a tool result: %s", r)
		}
	}
	if strings.Contains(h.log.String(), secretText) {
		t.Fatal("secret in the server log")
	}
	var files []string
	err := filepath.Walk(h.dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, p)
		if bytes.Contains(b, []byte(secretText)) {
			t.Errorf("secret in %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("checked %d files: %q", len(files), files)
	// The audit log, the database (and its WAL) and output segments.
	if len(files) < 3 {
		t.Fatalf("only %q checked", files)
	}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// typeOnPage performs the person's part of a URL question: open the page,
// check it names what asks, and post the secret (or decline when secret
// is "").
func typeOnPage(pageURL, wantOnPage, secretText string) error {
	res, err := http.Get(pageURL)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), wantOnPage) {
		return &pageError{"page " + strconv.Itoa(res.StatusCode) + ": " + string(body)}
	}
	m := csrfField.FindStringSubmatch(string(body))
	if m == nil {
		return &pageError{"no csrf token"}
	}
	form := url.Values{"csrf": {m[1]}, "secret": {secretText}, "action": {"send"}}
	if secretText == "" {
		form.Set("action", "decline")
	}
	res, err = http.PostForm(pageURL, form)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return &pageError{"post: " + res.Status}
	}
	return nil
}

type pageError struct{ msg string }

func (e *pageError) Error() string { return e.msg }

// urlCaps advertises form and URL elicitation.
var urlCaps = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}

// person answers questions: forms from answers (by a substring of the
// question), URL questions by typing secretText on the page.
type person struct {
	mu       sync.Mutex
	answers  map[string]string // substring of the message -> answer ("" declines)
	secret   string
	asked    []string // messages of form questions, in order
	urls     []string
	pageErrs []error
}

func (p *person) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{Capabilities: urlCaps, ElicitationHandler: p.handle}
}

func (p *person) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if req.Params.Mode == "url" {
		p.urls = append(p.urls, req.Params.URL)
		if err := typeOnPage(req.Params.URL, "asks for a secret", p.secret); err != nil {
			p.pageErrs = append(p.pageErrs, err)
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		return &mcp.ElicitResult{Action: "accept"}, nil
	}
	p.asked = append(p.asked, req.Params.Message)
	// The first paragraph names the command, which may quote every prompt.
	_, shown, _ := strings.Cut(req.Params.Message, "\n\n")
	for k, v := range p.answers {
		if strings.Contains(shown, k) {
			if v == "" {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": v}}, nil
		}
	}
	return &mcp.ElicitResult{Action: "cancel"}, nil
}
