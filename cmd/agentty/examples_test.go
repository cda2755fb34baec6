package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/sshtest"
)

// Every example flow shown in README.md and docs/ is a transcript under
// testdata/examples and is replayed here against the built binary, so the
// examples cannot drift from what agentty does. A transcript is txtar-shaped:
//
//	doc: docs/shells.md         the file that shows the flow, verbatim
//	needs: python3 vim          programs it starts (the test skips without them)
//	dir: /home/me/proj          a path in the flow that stands for the test's
//	                            directory (the server's working directory)
//	ssh: deploy web1 10.0.0.5:22
//	                            the flow's user, ssh alias and address stand
//	                            for a test sshd on 127.0.0.1 and its test user
//	                            (needs root: skipped otherwise, saying why)
//	-- setup.sh --              optional: bash, run in the parent of dir first
//	-- remote.sh --             optional: bash, run as the ssh user in its home
//	-- flow --                  the flow (notation: examples_flow_test.go)
//
// -update rewrites the values of the facts that do not match, in the
// transcript and in the document, from what agentty returned.

var updateExamples = flag.Bool("update", false, "rewrite example facts in testdata/examples and the docs from what agentty returns")

const examplesDir = "testdata/examples"

// docFiles are the documents whose fenced flows must all be transcripts.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, files...)
}

type example struct {
	file   string // the transcript
	doc    string // relative to the repository root
	needs  []string
	dir    string
	ssh    []string // user, alias, address
	setup  string
	remote string
	flow   string
}

var sectionLine = regexp.MustCompile(`(?m)^-- (\S+) --\n`)

func loadExample(t *testing.T, file string) example {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ex := example{file: file}
	text := string(b)
	locs := sectionLine.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		t.Fatalf("%s: no -- flow -- section", file)
	}
	for _, line := range strings.Split(text[:locs[0][0]], "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "doc":
			ex.doc = v
		case "needs":
			ex.needs = strings.Fields(v)
		case "dir":
			ex.dir = v
		case "ssh":
			if ex.ssh = strings.Fields(v); len(ex.ssh) != 3 {
				t.Fatalf("%s: ssh: want user, alias and address", file)
			}
		}
	}
	for i, l := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		switch body := text[l[1]:end]; text[l[2]:l[3]] {
		case "flow":
			ex.flow = body
		case "setup.sh":
			ex.setup = body
		case "remote.sh":
			ex.remote = body
		default:
			t.Fatalf("%s: unknown section %q", file, text[l[2]:l[3]])
		}
	}
	if ex.doc == "" || ex.flow == "" {
		t.Fatalf("%s: needs a doc: line and a -- flow -- section", file)
	}
	return ex
}

// fencedFlows returns the text of every fenced block in a markdown file that
// is a flow, with its line number.
func fencedFlows(text string) map[string]int {
	out := map[string]int{}
	lines := strings.SplitAfter(text, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
		}
		if block := strings.Join(lines[start:min(i, len(lines))], ""); isFlow(block) {
			out[block] = start + 1
		}
	}
	return out
}

// TestDocExamples_Replay checks that the docs show exactly the transcripts'
// flows and no other, then replays each through an MCP client against
// "agentty serve".
func TestDocExamples_Replay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(examplesDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in %s: %v", examplesDir, err)
	}
	var examples []example
	shown := map[string]bool{}
	for _, f := range files {
		ex := loadExample(t, f)
		examples = append(examples, ex)
		shown[ex.doc+"\x00"+ex.flow] = true
	}
	docs := docFiles(t)
	for _, ex := range examples {
		if !slices.Contains(docs, "../../"+ex.doc) {
			t.Errorf("%s: doc %s is not one of the documents checked (README.md, docs/*.md)", ex.file, ex.doc)
		}
	}
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(doc, "../../")
		for block, line := range fencedFlows(string(b)) {
			if !shown[rel+"\x00"+block] {
				t.Errorf("%s:%d shows a flow that no transcript in %s holds (add one, or copy the transcript's flow):\n%s", rel, line, examplesDir, block)
			}
		}
		for _, ex := range examples {
			if ex.doc == rel && !strings.Contains(string(b), "```\n"+ex.flow+"```") {
				t.Errorf("%s: its flow is not a fenced block of %s (the doc changed, or the transcript did)", ex.file, rel)
			}
		}
	}
	for _, ex := range examples {
		t.Run(strings.TrimSuffix(filepath.Base(ex.file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			replay(t, ex)
		})
	}
}

func replay(t *testing.T, ex example) {
	for _, p := range ex.needs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed (as root, scripts/test installs it)", p)
		}
	}
	steps, err := parseFlow(ex.flow)
	if err != nil {
		t.Fatalf("%s: %v", ex.file, err)
	}
	parent := t.TempDir()
	work := filepath.Join(parent, "work")
	if ex.dir != "" {
		work = filepath.Join(parent, filepath.Base(ex.dir))
	}
	home := filepath.Join(parent, "home")
	for _, d := range []string{work, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if ex.setup != "" {
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", ex.setup)
		cmd.Dir = parent
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("setup.sh: %v\n%s", err, out)
		}
	}
	// Names in the flow that stand for the test's: its directory, its sshd.
	var substs [][2]string // flow's → test's
	var flags []string
	if ex.dir != "" {
		substs = append(substs, [2]string{ex.dir, work})
	}
	if ex.ssh != nil {
		srv := sshtest.Start(t, "agentty-docs")
		flags = docSSHFlags(t, srv, ex.ssh[1])
		substs = append(substs, [2]string{ex.ssh[2], srv.Addr}, [2]string{ex.ssh[0], srv.User})
		if ex.remote != "" {
			cmd := exec.Command("runuser", "-u", srv.User, "--", "bash", "-euo", "pipefail", "-c", ex.remote)
			u, err := user.Lookup(srv.User)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Dir = u.HomeDir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("remote.sh: %v\n%s", err, out)
			}
		}
	}
	toTest := func(s string) string {
		for _, r := range substs {
			s = strings.ReplaceAll(s, r[0], r[1])
		}
		return s
	}
	toDoc := func(s string) string {
		for i := len(substs) - 1; i >= 0; i-- {
			s = strings.ReplaceAll(s, substs[i][1], substs[i][0])
		}
		return s
	}
	s := startServerWith(t, func(cmd *exec.Cmd) {
		cmd.Dir = work
		// A home of its own: no user rc files change what programs show.
		cmd.Env = append(cmd.Env, "HOME="+home, "SSH_AUTH_SOCK=")
	}, flags...)
	flow := ex.flow
	var edits []fact // facts whose values -update rewrites, with the new text in Want
	for i, st := range steps {
		args := mapStrings(st.Args, toTest).(map[string]any)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: st.Tool, Arguments: args})
		cancel()
		if err != nil {
			t.Fatalf("step %d %s: %v", i+1, st.Tool, err)
		}
		if res.IsError {
			t.Fatalf("step %d %s %v: tool error: %s", i+1, st.Tool, st.Args, allText(res))
		}
		var got any
		b, _ := json.Marshal(res.StructuredContent)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("step %d %s: structured result: %v", i+1, st.Tool, err)
		}
		got = mapStrings(got, toDoc)
		for _, f := range st.Facts {
			v, err := lookup(got, f.Path)
			if err == nil && matches(f.Want, v) {
				continue
			}
			if _, isPattern := f.Want.(*regexp.Regexp); *updateExamples && err == nil && !isPattern {
				f.Want = render(v, f.Bare)
				edits = append(edits, f)
				continue
			}
			t.Errorf("step %d %s: %s: got %s (%v), the example says %s\nresult: %s", i+1, st.Tool, f.Path, render(v, false), err, render(f.Want, f.Bare), b)
		}
	}
	if len(edits) > 0 {
		slices.SortFunc(edits, func(a, b fact) int { return b.start - a.start })
		for _, f := range edits {
			flow = flow[:f.start] + f.Want.(string) + flow[f.end:]
		}
		rewrite(t, ex.file, ex.flow, flow)
		rewrite(t, filepath.Join("../..", ex.doc), "```\n"+ex.flow+"```", "```\n"+flow+"```")
		t.Logf("rewrote %d facts in %s and %s", len(edits), ex.file, ex.doc)
	}
}

// docSSHFlags points agentty at srv: alias is a Host entry of its own ssh
// config for srv's address, user and client key; known_hosts holds srv's key.
func docSSHFlags(t *testing.T, srv *sshtest.Server, alias string) []string {
	t.Helper()
	dir := t.TempDir()
	known, cfg := filepath.Join(dir, "known_hosts"), filepath.Join(dir, "ssh_config")
	conf := fmt.Sprintf("Host %s\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  IdentityFile %s\n", alias, srv.Port, srv.User, srv.ClientKeyFile)
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(known, []byte(srv.KnownHostsLine(srv.Addr)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"-ssh-config", cfg, "-ssh-known-hosts", known}
}

// mapStrings applies f to every string in a decoded JSON value.
func mapStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = mapStrings(e, f)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = mapStrings(e, f)
		}
		return out
	}
	return v
}

// rewriteMu serializes -update's edits: parallel replays may share a document.
var rewriteMu sync.Mutex

func rewrite(t *testing.T, file, old, new string) {
	t.Helper()
	rewriteMu.Lock()
	defer rewriteMu.Unlock()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("-update: %s does not hold the flow any more", file)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// volatile are the parts of demo output that differ between runs:
// latencies and pids.
var volatile = regexp.MustCompile(`\([0-9.]+ ms\)|pid [0-9]+`)

// TestDocExamples_Demo checks README's excerpt of "agentty demo" output
// against a real run: the same calls and results, latencies and pids aside.
func TestDocExamples_Demo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed (as root, scripts/test installs it)")
	}
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "`demo` launches `agentty serve`")
	if !ok {
		t.Fatal("README no longer introduces the demo's output")
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	cmd := selfCommand(t, "demo")
	stdout, stderr := logFile(t, "demo.out"), logFile(t, "demo.err")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("demo: %v\n%s", err, readFile(t, stderr))
	}
	norm := func(s string) string {
		lines := strings.Split(volatile.ReplaceAllString(s, "…"), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " ")
		}
		return strings.Join(lines, "\n")
	}
	if out := readFile(t, stdout); !strings.Contains(norm(out), norm(block)) {
		t.Errorf("README's demo output is not what demo prints (latencies and pids aside):\nREADME:\n%s\ndemo:\n%s", block, out)
	}
}
