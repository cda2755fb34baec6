// Command agentty is an MCP server that gives AI agents real terminals:
// start interactive and long-running programs, type into them, read what
// they print, and stop them, across many tool calls.
package main

import (
	"fmt"
	"io"
	"os"

	core "github.com/agentty/agentty/internal/server"
)

const usage = `agentty - terminals for AI agents, over MCP

Usage:
  agentty serve [flags]   MCP on stdio (what MCP clients launch), relayed to the
                          per-user daemon so sessions outlive the client;
                          -standalone serves in this process instead
  agentty daemon [flags]  the daemon serve starts when none runs (-status, -stop)
  agentty serve -http 127.0.0.1:7777
                          serve MCP over HTTP (/mcp, legacy /sse) to remote and many clients
  agentty web             open the daemon's sessions, live, in your browser (-no-open prints the URL)
  agentty ls              list the daemon's sessions (state, age, holder, command)
  agentty attach ID       make this terminal the session's (-read-only watches; Ctrl-] d detaches)
  agentty logs ID [-f]    print a session's output (-since-line N, -raw)
  agentty kill ID         terminate a session's process tree
  agentty export ID       write a session as an asciicast v2 recording (-format text)
  agentty demo            start a server, drive a python3 REPL through it, print each step
  agentty bench [flags]   measure round trips, throughput and memory
  agentty node            serve a local agentty on stdin/stdout from inside a container (docs/nodes.md)
  agentty askpass [prompt]
                          ask the person for sudo's password (sessions' SUDO_ASKPASS)
  agentty version         print the version, commit, build date and platform
  agentty help            this text

Install (from a clone; into $(go env GOPATH)/bin, which must be on PATH):
  CGO_ENABLED=0 go install ./cmd/...

Connect a client (Claude Code):
  claude mcp add agentty -- agentty serve

Run 'agentty serve -h' for the server's flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches a subcommand and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stderr)
	case "web":
		return web(args[1:], stdout, stderr)
	case "daemon":
		return daemonCmd(args[1:], stdout, stderr)
	case "ls":
		return ls(args[1:], stdout, stderr)
	case "attach":
		return attach(args[1:], stdin, stdout, stderr)
	case "logs":
		return logs(args[1:], stdout, stderr)
	case "kill":
		return kill(args[1:], stdout, stderr)
	case "export":
		return export(args[1:], stdout, stderr)
	case "demo":
		return demo(args[1:], stdout, stderr)
	case "bench":
		return runBench(args[1:], stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, versionLine())
		return 0
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	case "node":
		return runNode(stdin, stdout, stderr)
	case "askpass":
		return askpassCmd(args[1:], stdout, stderr)
	case core.SandboxHelperArg:
		return core.RunSandboxHelper()
	}
	fmt.Fprintf(stderr, "agentty: unknown command %q\n\n%s", args[0], usage)
	return 2
}
