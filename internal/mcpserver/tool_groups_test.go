package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// TestSelectTools_Groups checks that -tools offers exactly the tools of
// the named groups and tools, and refuses a name it does not know.
func TestSelectTools_Groups(t *testing.T) {
	all := []string{"await_command", "delete_session", "diff_commands", "exec_command", "get_history", "get_message",
		"get_policy", "get_session_info", "list_hosts", "list_messages", "list_sessions", "open_shell", "read_output",
		"read_screen", "register_reader", "resize_pty", "retry_command", "run_command", "search_output", "send_input",
		"start_process", "terminate_process", "unregister_reader", "wait_sessions", "write_file"}
	for _, tc := range []struct {
		sel  []string
		want []string
	}{
		{nil, all},
		{[]string{"all"}, all},
		{[]string{"core"}, []string{"delete_session", "get_policy", "get_session_info", "list_sessions", "read_output", "read_screen",
			"register_reader", "resize_pty", "send_input", "start_process", "terminate_process", "unregister_reader", "wait_sessions"}},
		{[]string{"shell", " get_history"}, []string{"await_command", "diff_commands", "exec_command", "get_history", "open_shell",
			"retry_command", "run_command", "write_file"}},
		{[]string{"history", "ssh"}, []string{"get_history", "get_message", "list_hosts", "list_messages", "search_output"}},
	} {
		t.Run(strings.Join(tc.sel, "+"), func(t *testing.T) {
			if err := CheckTools(tc.sel); err != nil {
				t.Fatal(err)
			}
			mgr := session.NewManager(session.Config{})
			srv := New(mgr, withEngine(mgr, &Options{Hosts: noHosts{}}))
			if err := SelectTools(srv, tc.sel); err != nil {
				t.Fatal(err)
			}
			c := connect(t, mgr, srv, "select", nil, nil, nil)
			tl, err := c.cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tool := range tl.Tools {
				got = append(got, tool.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("tools = %v\nwant %v", got, tc.want)
			}
		})
	}
	t.Run("unknown", func(t *testing.T) {
		err := CheckTools([]string{"core", "shel"})
		if err == nil || !strings.Contains(err.Error(), `unknown tool or group "shel": use all, core, history, shell, ssh, or a tool name`) {
			t.Errorf("CheckTools(shel) = %v", err)
		}
	})
}
