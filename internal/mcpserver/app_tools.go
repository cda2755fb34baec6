package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/secret"
	"github.com/agentty/agentty/internal/session"
)

const (
	// appHolder is the lease holder of a person typing in the app, as
	// "attach" and "web" are for the others: the agent's refusal names it.
	appHolder = "chat"
	// appChunk bounds the output one view carries, and the newest output
	// a first view (offset -1) starts with.
	appChunk = 256 << 10
	// appMaxWait bounds a view's wait; the host relays it as one call.
	appMaxWait = 20 * time.Second
	// appStatePoll is how often a waiting view looks at the state, which
	// changes (awaiting input, a password prompt) without new output.
	appStatePoll = 200 * time.Millisecond
)

// ErrNotSecretPrompt refuses a secret sent where the program is not
// asking for one with echo off: it would be shown.
var ErrNotSecretPrompt = fmt.Errorf("%w: the program is not at a no-echo prompt; a secret goes only to a password prompt", session.ErrBadArgs)

// registerApp adds the app's resource and its app-only tools. They are
// not in docTools (docs/tools.md lists what models see) and are left out
// of tools/list for clients without the extension (appsGate).
func (t *tools) registerApp(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{URI: AppURI, Name: "terminal", MIMEType: AppMIME,
		Description: "A live terminal of one session, shown beside start_process, open_shell, read_screen and run_command.",
		Meta:        appResourceMeta}, t.readApp)
	visible := mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}}
	addApp(srv, t.log, &mcp.Tool{Name: "app_view", Meta: visible, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		Description: "The terminal app's view of a session: state, keyboard holder and raw output from offset."}, t.appView)
	addApp(srv, t.log, &mcp.Tool{Name: "app_input", Meta: visible, Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)},
		Description: "A person's keys from the terminal app (taking the keyboard), their secret at a no-echo prompt, or handing the keyboard back."}, t.appInput)
}

// addApp registers an app-only tool with its inferred schema, built when
// first listed or called, as add does for the model's tools: every start
// would otherwise pay for schemas only app hosts ever read.
func addApp[In, Out any](srv *mcp.Server, log *slog.Logger, tool *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) {
	full := sync.OnceValue(inputSchema[In])
	resolve := sync.OnceValue(func() *jsonschema.Resolved {
		r, err := full().Resolve(nil)
		if err != nil {
			panic(fmt.Sprintf("input schema of %s: %v", tool.Name, err)) // a programming error
		}
		return r
	})
	wire := *tool
	// AddTool checks a *jsonschema.Schema's type; the listed schema is set
	// once it returns.
	wire.InputSchema = &jsonschema.Schema{Type: "object"}
	defer func() {
		wire.InputSchema = lazyJSON(sync.OnceValue(func() []byte {
			b, err := json.Marshal(full())
			if err != nil {
				panic(fmt.Sprintf("input schema of %s: %v", tool.Name, err))
			}
			return b
		}))
	}()
	srv.AddTool(&wire, typed(log, tool.Name, resolve, h))
}

// lazyJSON marshals as the bytes its function returns.
type lazyJSON func() []byte

func (l lazyJSON) MarshalJSON() ([]byte, error) { return l(), nil }

// appResourceMeta: no network at all (an empty csp), and a border.
var appResourceMeta = mcp.Meta{"ui": map[string]any{"csp": map[string]any{}, "prefersBorder": true}}

func (t *tools) readApp(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: AppURI, MIMEType: AppMIME, Text: appHTML(), Meta: appResourceMeta}}}, nil
}

func (t *tools) appView(ctx context.Context, _ *mcp.CallToolRequest, in AppViewInput) (AppView, error) {
	s, err := t.mgr.Get(in.SessionID)
	if err != nil {
		return AppView{}, err
	}
	if in.WaitMs < 0 || time.Duration(in.WaitMs)*time.Millisecond > appMaxWait {
		return AppView{}, fmt.Errorf("%w: wait_ms must be between 0 and %d", session.ErrBadArgs, appMaxWait.Milliseconds())
	}
	from := in.Offset
	if from < 0 {
		from = max(0, s.OutputEnd()-appChunk)
	}
	if in.WaitMs > 0 && s.OutputEnd() <= from {
		t.appWait(ctx, s, in, time.Duration(in.WaitMs)*time.Millisecond)
	}
	return appViewOf(s, from), nil
}

// appWait returns at new output past in.Offset, a change of the lease or
// size, the state leaving in.State, the session's end, the deadline or
// the caller's going away, whichever comes first.
func (t *tools) appWait(ctx context.Context, s *session.Session, in AppViewInput, d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	poll := time.NewTicker(appStatePoll)
	defer poll.Stop()
	changed, watch := s.OutputChanged(), s.Watch()
	for s.OutputEnd() <= in.Offset {
		select {
		case <-changed:
			changed = s.OutputChanged()
		case <-watch:
			return
		case <-s.Done():
			return
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		case <-poll.C:
			if st, _ := s.State(); string(st) != in.State || s.Holder() != in.Holder {
				return
			}
		}
	}
}

func appViewOf(s *session.Session, from int64) AppView {
	info := s.Info()
	sl := s.RawOutput(from, appChunk)
	v := AppView{SessionID: s.ID, Command: info.Command, Mode: string(info.Mode), State: string(info.State),
		ExitCode: info.ExitCode, Signal: info.Signal, Rows: info.Rows, Cols: info.Cols, Holder: info.Holder,
		From: sl.From, Next: sl.Next, End: sl.End, Lost: sl.LostBytes, Ended: info.State == record.StateExited || info.State == record.StateLost}
	if len(sl.Data) > 0 {
		v.Data = base64.StdEncoding.EncodeToString(sl.Data)
	}
	return v
}

func (t *tools) appInput(_ context.Context, _ *mcp.CallToolRequest, in AppInputInput) (AppInputResult, error) {
	s, err := t.mgr.Get(in.SessionID)
	if err != nil {
		return AppInputResult{}, err
	}
	out := AppInputResult{SessionID: s.ID}
	switch {
	case in.Release:
		s.Release(appHolder, "released")
	case in.Secret != "":
		if st, _ := s.State(); st != record.StateAwaitingPassword {
			return AppInputResult{}, ErrNotSecretPrompt
		}
		p := append([]byte(in.Secret), '\r')
		err = s.Type(appHolder, p)
		out.Bytes = len(p)
		secret.Clear(p)
	default:
		err = s.Type(appHolder, []byte(in.Data))
		out.Bytes = len(in.Data)
	}
	if err != nil {
		return AppInputResult{}, err
	}
	out.Holder = s.Holder()
	return out, nil
}
