package mcpserver

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolGroups sort the tools for Options.Tools (agentty serve -tools), so a
// client that wants fewer tools in its context can name what it uses. A
// tool not listed here belongs to core.
var toolGroups = map[string][]string{
	"core": {"start_process", "send_input", "read_output", "list_sessions", "get_session_info",
		"terminate_process", "resize_pty", "delete_session", "register_reader", "unregister_reader",
		"read_screen", "get_policy", "wait_sessions"},
	"shell":   {"open_shell", "exec_command", "await_command", "retry_command", "diff_commands", "write_file", "run_command"},
	"history": {"get_history", "search_output", "list_messages", "get_message"},
	"ssh":     {"list_hosts"},
}

// groupOf returns the group a tool belongs to.
func groupOf(tool string) string {
	for g, names := range toolGroups {
		if slices.Contains(names, tool) {
			return g
		}
	}
	return "core"
}

// ToolGroups names the groups Options.Tools accepts besides "all" and tool
// names, for flag help.
func ToolGroups() string {
	gs := make([]string, 0, len(toolGroups))
	for g := range toolGroups {
		gs = append(gs, g)
	}
	sort.Strings(gs)
	return strings.Join(gs, ", ")
}

// CheckTools refuses a name in sel that is not "all", a group or a tool of
// a group, so a typo in -tools does not silently hide tools.
func CheckTools(sel []string) error {
	_, err := keptTools(nil, sel)
	return err
}

// SelectTools removes from srv, a server New built, every tool that sel
// (group names, tool names or "all"; empty: all) leaves out; it refuses
// what CheckTools refuses.
func SelectTools(srv *mcp.Server, sel []string) error {
	registered := docTools.names()
	keep, err := keptTools(registered, sel)
	if err != nil || keep == nil {
		return err
	}
	var drop []string
	for _, t := range registered {
		if !keep[t] {
			drop = append(drop, t)
		}
	}
	srv.RemoveTools(drop...)
	return nil
}

// keptTools returns the tools of registered that sel keeps (nil: all).
func keptTools(registered, sel []string) (map[string]bool, error) {
	if len(sel) == 0 {
		return nil, nil
	}
	keep := map[string]bool{}
	for _, s := range sel {
		s = strings.TrimSpace(s)
		switch {
		case s == "all":
			return nil, nil
		case toolGroups[s] != nil:
			for _, t := range registered {
				if groupOf(t) == s {
					keep[t] = true
				}
			}
		case slices.Contains(registered, s) || slices.Contains(toolGroups[groupOf(s)], s):
			keep[s] = true
		default:
			return nil, fmt.Errorf("unknown tool or group %q: use all, %s, or a tool name", s, ToolGroups())
		}
	}
	return keep, nil
}
