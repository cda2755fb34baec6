// Package mcpserver exposes the session engine as MCP tools through the
// official Go SDK. Every tool is typed (input and output schemas), returns
// structuredContent plus a compact text rendering, turns bad input into a
// tool error that says what to do, and recovers from panics per call.
//
// What agents see lives in a few places: the tools' input and output types
// in protocol_*.go (the only types with json tags; convert_*.go turns engine
// values into them), descriptions in the register functions, the wording of
// engine errors in errors.go, and testdata/tools.json, the golden of
// tools/list that a test compares byte for byte.
package mcpserver

import (
	"crypto/rand"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/catalog"
	"github.com/agentty/agentty/internal/gate"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/runner"
	"github.com/agentty/agentty/internal/secret"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/shell"
	"github.com/agentty/agentty/internal/store"
)

// Options configure the server; nil means defaults.
type Options struct {
	Version string
	Logger  *slog.Logger
	// Policy decides which commands may run (nil: all). See policy_gate.go.
	Policy *policy.Policy
	// Audit records starts, inputs, stops, refusals and confirmations (nil: none).
	Audit *audit.Log
	// MaxReadBytes caps max_bytes of every reading call (0: session.MaxBytesCap).
	MaxReadBytes int
	// Hosts lists SSH connections for list_hosts; nil leaves the tool out.
	Hosts HostLister
	// Remote runs shells, one-shot commands and file writes on other hosts
	// (the host argument of open_shell and run_command): the SSH backend's
	// sshbackend.Pool. nil turns host off for those tools.
	Remote RemoteHosts
	// Store is the durable transcript store; nil when agentty runs with
	// --no-store (history tools then see only what memory holds).
	Store *store.Store
	// Shells are mgr's shell sessions (open_shell, exec_command) and Runner
	// runs one-shot commands (run_command). The server core builds both,
	// so every front end it hosts shares them; New panics without them.
	Shells *shell.Registry
	Runner *runner.Runner
	// Secrets serves the one-time pages where the person types a secret
	// (send_input secret=ask_user, password prompts of interactive runs);
	// nil turns those off. The caller closes it.
	Secrets *secret.Pages
	// MaxRounds caps the questions of an interactive run_command
	// (0: DefaultMaxRounds).
	MaxRounds int
	// Person, when set, is bound to the server so that askpass questions
	// reach its clients (person.go).
	Person *Person
	// Notice, when set, follows the instructions as a paragraph of its own.
	Notice string
}

// instructions tell an agent how to use the tools well.
const instructions = `agentty runs interactive and long-running programs for you on real terminals.
Flow: start_process (returns the first output, e.g. a REPL banner and prompt) -> send_input (types, then returns the reply) -> read_output (more output) -> terminate_process.
Calls return as soon as the program waits for input (reason=awaiting_input), the until regex matches, the program exits, output settles, or timeout_ms passes; no sleeping or polling needed. return_on narrows this: ["exit"] waits for the program to end, ["match"] waits past prompts for until.
session_id takes a session's id or the name given at start.
state=awaiting_password means the program asks for a secret with echo off: send_input secret=ask_user lets the user type it; never type it yourself.
If a call is refused by policy, the error names the rule; get_policy shows what may run. Change the command instead of retrying it.

Full-screen programs (vim, less, top, htop, curses menus; tui=true) redraw the terminal: read_screen returns the screen as a person sees it.`

// New returns an MCP server whose tools drive mgr, o.Shells and o.Runner.
func New(mgr *session.Manager, o *Options) *mcp.Server {
	if o == nil || o.Shells == nil || o.Runner == nil {
		panic("mcpserver.New: Options.Shells and Options.Runner are required (internal/server builds them)")
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	subs := newSubscriptions(mgr, logger)
	instr := instructions
	if o.Notice != "" {
		instr += "\n\n" + o.Notice
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "agentty", Title: "agentty: terminals for agents", Version: o.Version},
		&mcp.ServerOptions{Instructions: instr, SubscribeHandler: subs.subscribe, UnsubscribeHandler: subs.unsubscribe})
	subs.srv = srv
	t := &tools{mgr: mgr, log: logger, shells: o.Shells, runner: o.Runner,
		gate:  gate.New(gate.Options{Policy: o.Policy, Audit: o.Audit, MaxInputBytes: mgr.MaxInputBytes(), MaxReadBytes: o.MaxReadBytes, Logger: logger}),
		hosts: o.Hosts, store: o.Store, remote: o.Remote, pages: o.Secrets, maxRounds: o.MaxRounds, runs: map[string]*time.Timer{}}
	if t.maxRounds <= 0 {
		t.maxRounds = DefaultMaxRounds
	}
	t.who = people{inflight: map[string]*mcp.ServerSession{}, runs: map[string]bool{}, pending: map[string]*secret.Page{}, changed: make(chan struct{}),
		waiting: map[string]map[*askWaiter]struct{}{}}
	if o.Person != nil {
		o.Person.t = t
	}
	t.cat = catalog.New(mgr, o.Store)
	_, _ = rand.Read(t.stateKey[:])
	if t.store != nil {
		mgr.ExplainMissing(t.pastSessionErr)
	}
	t.register(srv)
	t.subs = subs
	t.registerResources(srv)
	t.registerApp(srv)
	srv.AddReceivingMiddleware(capReplies(logger), t.track, appsGate)
	return srv
}

type tools struct {
	mgr    *session.Manager
	log    *slog.Logger
	shells *shell.Registry // shell sessions of mgr (open_shell, exec_command)
	runner *runner.Runner  // one-shot argv runs (run_command)
	gate   *gate.Gate      // policy, confirmation, limits and audit log
	// stateKey signs confirmation request states; random per server.
	stateKey [32]byte
	hosts    HostLister   // nil: no list_hosts
	store    *store.Store // nil: memory only
	remote   RemoteHosts  // nil: host is refused by open_shell and run_command

	// cat is every session of mgr and store, live and recorded.
	cat *catalog.Catalog
	// subs are the clients' resource subscriptions (resource_subs.go).
	subs *subscriptions

	pages     *secret.Pages // nil: no secret pages
	maxRounds int           // questions per interactive run
	runsMu    sync.Mutex
	runs      map[string]*time.Timer // interactive runs awaiting a retry, by session; guarded by runsMu
	peopleMu  sync.Mutex
	who       people // guarded by peopleMu
}
