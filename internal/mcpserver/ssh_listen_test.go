package mcpserver

import (
	"strings"
	"testing"
)

// TestSSH_ListeningFromRemoteProc: on a Linux remote the helper lists the
// sockets of the session's tree from the remote /proc, so until_listening
// returns the port, which the test then connects to (the test sshd runs on
// this machine).
func TestSSH_ListeningFromRemoteProc(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(e.srv.Addr)
	for _, tc := range []struct {
		name  string
		args  map[string]any
		proto string
	}{
		{"python http.server", map[string]any{"argv": []string{"python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1"}}, "tcp"},
		{"child of a child", map[string]any{"command": "sh -c 'sleep 0.2; exec python3 -c \"import socket,time; s=socket.socket(); s.bind((\\\"127.0.0.1\\\",0)); s.listen(); time.sleep(60)\"'; true"}, "tcp"},
		{"unix", map[string]any{"command": "d=$(mktemp -d) && exec python3 -c 'import socket,time,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); time.sleep(60)' \"$d/my sock\""}, "unix"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["host"] = host
			tc.args["until_listening"] = true
			tc.args["timeout_ms"] = 20000
			r := c.start(tc.args)
			defer c.stop(r.SessionID)
			if r.Reason != "listening" || len(r.Listening) != 1 || r.Listening[0].Proto != tc.proto {
				t.Fatalf("reason=%s listening=%+v output=%q", r.Reason, r.Listening, r.Output)
			}
			s := r.Listening[0]
			if s.Proto == "unix" {
				if !strings.HasSuffix(s.Path, "/my sock") {
					t.Fatalf("path %q", s.Path)
				}
				return // the remote user's temp dir may not be ours to open
			}
			dial(t, s)
			var info InfoResult
			c.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
			if len(info.Listening) != 1 || info.Listening[0] != s {
				t.Fatalf("info listening %+v, want %+v", info.Listening, s)
			}
		})
	}
}
