package mcpserver

// Sessions as MCP resources: agentty://sessions (the list) and, per
// session, its info, its newest output and its screen, read by
// resources/read and watched by subscriptions (resource_subs.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/session"
)

const (
	sessionsURI    = "agentty://sessions"
	sessionPrefix  = sessionsURI + "/"
	outputSuffix   = "/output"
	screenSuffix   = "/screen"
	resourceOutput = 64 << 10 // newest output bytes a resource read returns
)

// sessionURI names one of a session's resources ("" for its info).
func sessionURI(id, suffix string) string { return sessionPrefix + id + suffix }

// parseURI splits a resource URI into the session id ("" for the list) and
// the suffix ("", outputSuffix or screenSuffix).
func parseURI(uri string) (id, suffix string, ok bool) {
	if uri == sessionsURI {
		return "", "", true
	}
	rest, found := strings.CutPrefix(uri, sessionPrefix)
	if !found || rest == "" {
		return "", "", false
	}
	id, suffix, _ = strings.Cut(rest, "/")
	switch suffix {
	case "":
	case "output", "screen":
		suffix = "/" + suffix
	default:
		return "", "", false
	}
	return id, suffix, id != ""
}

func (t *tools) registerResources(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{URI: sessionsURI, Name: "sessions", MIMEType: "application/json",
		Description: "Every session with its state (as list_sessions); subscribe to hear of starts, exits and deletions."}, t.readResource)
	for _, r := range []struct{ suffix, name, mime, desc string }{
		{"", "session", "application/json", "One session's info (as get_session_info); subscribe to hear when it has new output, waits for input, listens or exits."},
		{outputSuffix, "session output", "text/plain", "The session's newest output as clean text (at most 64 KiB)."},
		{screenSuffix, "session screen", "text/plain", "The rendered screen of a PTY session."},
	} {
		srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: sessionPrefix + "{session_id}" + r.suffix, Name: r.name,
			MIMEType: r.mime, Description: r.desc}, t.readResource)
	}
}

func (t *tools) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, suffix, ok := parseURI(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var text, mime string
	switch {
	case id == "":
		list, err := t.cat.List(time.Time{}, true)
		if err != nil {
			return nil, err
		}
		text, mime = jsonText(ListResult{Sessions: sessionInfos(list), Count: len(list)}), "application/json"
	case suffix == "":
		info, err := t.cat.Info(id)
		if err != nil {
			return nil, resourceErr(uri, err)
		}
		text, mime = jsonText(sessionInfo(info)), "application/json"
	default:
		s, err := t.mgr.Get(id)
		if err != nil {
			return nil, resourceErr(uri, err)
		}
		if text, err = resourceText(ctx, s, suffix); err != nil {
			return nil, agentError(err)
		}
		mime = "text/plain"
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
}

// resourceText is a session's newest output or its screen.
func resourceText(ctx context.Context, s *session.Session, suffix string) (string, error) {
	if suffix == screenSuffix {
		r, err := s.Screen(ctx, session.ScreenOptions{})
		if err != nil {
			return "", err
		}
		return strings.Join(r.Snapshot.Lines, "\n") + "\n", nil
	}
	from := max(0, s.OutputEnd()-resourceOutput)
	r, err := s.Read(ctx, session.Cursor{At: &from}, session.WaitOptions{}, session.ReadOptions{MaxBytes: resourceOutput, Overflow: session.OverflowTail})
	if err != nil {
		return "", err
	}
	return r.Output.Text, nil
}

func resourceErr(uri string, err error) error {
	if errors.Is(err, session.ErrSessionNotFound) {
		return mcp.ResourceNotFoundError(uri)
	}
	return agentError(err)
}

func jsonText(v any) string {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return fmt.Sprintf(`{"error": %q}`, err.Error())
	}
	return string(b)
}
