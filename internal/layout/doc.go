// Package layout holds no code: its tests keep the module's structure, so
// the import rules that make the server core hostable by any front end stay
// held (mcpserver is protocol glue, cmd/agentty reaches the engine through
// internal/server, store sits below session, the engine speaks no protocol),
// internal/session asks its backend.Process instead of checking its kind,
// and no Go file grows past one idea.
package layout

// backendSide are the packages behind the session engine that the protocol
// layer must not reach around it (procfile: the raw /proc reads of
// inputwait and session; ttymode: a terminal's termios, read per OS;
// darwinproc: libproc's process facts, macOS's /proc).
var backendSide = []string{"internal/backend", "internal/proctree", "internal/sshbackend", "internal/nodebackend", "internal/inputwait",
	"internal/procfile", "internal/ttymode", "internal/darwinproc"}

// cmdMayImport are the packages cmd/agentty may import: the server core,
// the benchmark (its own front end), configuration loading, the tool-call
// helper of the client subcommand, the daemon socket's client side and the
// askpass client, standard input through the poller (the relay's), and the
// guard's entry (it runs before the heavy package inits, see
// internal/guardstart). The console client (ls, attach, logs,
// kill, export) imports no engine.
var cmdMayImport = []string{"internal/server", "internal/bench", "internal/config", "internal/toolcall",
	"internal/console/client", "internal/daemon", "internal/askpass", "internal/stdin", "internal/guardstart"}

// containerClients are what cmd/agentty must not depend on: the Docker
// client and client-go, whose package inits and size cost every server
// start. agentty-link (internal/nodelink) holds them.
var containerClients = []string{"github.com/moby/", "github.com/docker/", "k8s.io/", "github.com/agentty/agentty/internal/nodelink"}

// frontEnds are the packages that speak MCP; everything else under
// internal/ is engine and must not depend on a protocol package.
var frontEnds = []string{"internal/mcpserver", "internal/httpserver", "internal/server", "internal/stdio",
	"internal/toolcall", "internal/bench"}
