package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func ptr[T any](v T) *T { return &v }

// register adds every tool. The SDK lists tools sorted by name, so the order
// agents see is stable.
func (t *tools) register(srv *mcp.Server) {
	add(srv, t.log, &mcp.Tool{Name: "start_process", Description: "Start a program (REPL, shell, ssh, server, TUI) on a PTY or pipes; return its first output, waiting like read_output (defaults 10000/1000 ms).",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)}}, t.startProcess)
	add(srv, t.log, &mcp.Tool{Name: "send_input", Description: "Type text, then keys, then Enter (enter=true) and return the reply, waiting like read_output (defaults 10000/1000 ms). A PTY line over 4095 bytes is refused.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)}}, t.sendInput)
	add(srv, t.log, &mcp.Tool{Name: "read_output", Description: "Wait, then return output this reader has not seen (or from cursor/since_line). Returns on an until match, awaiting input, exit, settle_ms of quiet or timeout_ms (defaults 5000/500).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.readOutput)
	add(srv, t.log, &mcp.Tool{Name: "wait_sessions", Description: "Wait on several sessions; return the first that matches, awaits input, exits or listens, with its unread output and the others' states; parameters as read_output (default timeout 30000 ms).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.waitSessions)
	add(srv, t.log, &mcp.Tool{Name: "list_sessions", Description: "List sessions with state, pid, command and output size.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.listSessions)
	add(srv, t.log, &mcp.Tool{Name: "get_session_info", Description: "One session's details: command, state, exit, times, sizes, tui (then use read_screen), readers.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.getSessionInfo)
	add(srv, t.log, &mcp.Tool{Name: "terminate_process", Description: "Stop a session's whole process tree (SIGTERM, then SIGKILL after grace_ms) and return its exit status. Idempotent.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true}}, t.terminateProcess)
	add(srv, t.log, &mcp.Tool{Name: "resize_pty", Description: "Resize a PTY session's terminal (rows and cols 1-1000); the program gets SIGWINCH.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, t.resizePTY)
	add(srv, t.log, &mcp.Tool{Name: "delete_session", Description: "Forget an exited session and free its output.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: false}}, t.deleteSession)
	add(srv, t.log, &mcp.Tool{Name: "register_reader", Description: "Add an independent read cursor to a session, so another agent reads the same output.",
		Annotations: &mcp.ToolAnnotations{}}, t.registerReader)
	add(srv, t.log, &mcp.Tool{Name: "unregister_reader", Description: "Remove a reader added with register_reader.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: false}}, t.unregisterReader)
	t.registerShellTools(srv)
	t.registerPolicy(srv)
	t.registerSSH(srv)
	t.registerScreen(srv)
	t.registerHistory(srv)
}
