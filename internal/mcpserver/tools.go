package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/keys"
)

func ptr[T any](v T) *T { return &v }

// register adds every tool. The SDK lists tools sorted by name, so the order
// agents see is stable.
func (t *tools) register(srv *mcp.Server) {
	add(srv, t.log, &mcp.Tool{Name: "start_process", Description: "Start a program (REPL, shell, ssh, dev server, installer, TUI) and return its first output. " +
		"Give command (run by /bin/sh -c) or argv (exec'd directly). mode pty (default: a real terminal) or pipe (stdout/stderr kept apart). " +
		"Waits like read_output (defaults: timeout_ms 10000, settle_ms 1000) so a REPL's banner and prompt come back in this call with reason awaiting_input.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)}}, t.startProcess)
	add(srv, t.log, &mcp.Tool{Name: "send_input", Description: "Type into a session, then wait and return the reply (one call per round trip). " +
		"Sends text, then the named keys in order, then Enter if enter=true. Keys: " + keys.Summary + ". " +
		"A terminal in line mode passes at most 4095 bytes of one line to the program: a longer line is refused (send bulk data with write_file, or use mode pipe). " +
		"stdin_eof closes stdin (pipe mode) or sends Ctrl+D (pty). In pipe mode ctrl+c/ctrl+\\/ctrl+z send SIGINT/SIGQUIT/SIGTSTP to the process group and ctrl+d closes stdin. " +
		"Wait defaults: timeout_ms 10000, settle_ms 1000.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)}}, t.sendInput)
	add(srv, t.log, &mcp.Tool{Name: "read_output", Description: "Return output that this reader has not seen yet (or from an explicit cursor / since_line), waiting first: " +
		"returns when until matches, the program awaits input, it exits, output settles for settle_ms, or timeout_ms passes (defaults 5000 / 500). " +
		"Large output is cut to max_bytes/max_lines keeping head and tail, with the omitted range reported.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.readOutput)
	add(srv, t.log, &mcp.Tool{Name: "wait_sessions", Description: "Wait on several sessions at once: returns the first that matches until, waits for input, exits or listens (until_listening), with its unread output, plus the states of the others. " +
		"Default timeout_ms 30000, no settle.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.waitSessions)
	add(srv, t.log, &mcp.Tool{Name: "list_sessions", Description: "List sessions with their state (running, awaiting_input, awaiting_password, exited), pid, command and output size.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.listSessions)
	add(srv, t.log, &mcp.Tool{Name: "get_session_info", Description: "Details of one session: command, mode, pid, state, exit code or signal, timestamps, uptime, bytes and lines produced, terminal size, tui (a full-screen program is showing: use read_screen), readers.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.getSessionInfo)
	add(srv, t.log, &mcp.Tool{Name: "terminate_process", Description: "Stop a session's whole process tree (including children that started their own process groups): SIGTERM (a shell at its prompt, which ignores it, is hung up with SIGHUP), then SIGKILL after grace_ms (default 5000), or SIGKILL at once with force. Returns the real exit status. Idempotent.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true}}, t.terminateProcess)
	add(srv, t.log, &mcp.Tool{Name: "resize_pty", Description: "Change a PTY session's terminal size (rows, cols 1-1000); the program gets SIGWINCH.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, t.resizePTY)
	add(srv, t.log, &mcp.Tool{Name: "delete_session", Description: "Forget an exited session and free its output. Running sessions must be terminated first.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: false}}, t.deleteSession)
	add(srv, t.log, &mcp.Tool{Name: "register_reader", Description: "Add an independent cursor to a session so another agent can read the same output without taking it from others. from=start (default: all retained output) or end (only what comes next).",
		Annotations: &mcp.ToolAnnotations{}}, t.registerReader)
	add(srv, t.log, &mcp.Tool{Name: "unregister_reader", Description: "Remove a reader added with register_reader.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: false}}, t.unregisterReader)
	t.registerShellTools(srv)
	t.registerPolicy(srv)
	t.registerSSH(srv)
	t.registerScreen(srv)
	t.registerHistory(srv)
}
