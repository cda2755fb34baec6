package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

type noHosts struct{}

func (noHosts) Hosts() []HostInfo { return nil }

// TestToolsList_Golden compares everything agents read about the tools
// (names, descriptions, annotations, input and output schemas) and the
// server instructions with testdata/tools.json, so any change to that
// surface shows up in review. Refresh with: go test ./internal/mcpserver -run
// TestToolsList_Golden -update
func TestToolsList_Golden(t *testing.T) {
	mgr := session.NewManager(session.Config{})
	c := connect(t, mgr, New(mgr, withEngine(mgr, &Options{Hosts: noHosts{}})), "golden", nil, nil, nil)
	ctx := context.Background()
	tl, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(struct {
		Instructions string `json:"instructions"`
		Tools        any    `json:"tools"`
	}{c.cs.InitializeResult().Instructions, tl.Tools}); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	path := filepath.Join("testdata", "tools.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("tools/list differs from %s (%d bytes, want %d); if the change is meant, run with -update and review the diff", path, len(got), len(want))
		gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w []byte
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if !bytes.Equal(g, w) {
				t.Errorf("first difference at line %d:\n got: %s\nwant: %s", i+1, g, w)
				break
			}
		}
	}
}
