package mcpserver

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
)

// dial connects to a reported socket and says what happened, so a test
// proves the port is the program's.
func dial(t *testing.T, s Socket) {
	t.Helper()
	var network, addr string
	switch s.Proto {
	case "tcp", "tcp6":
		network, addr = "tcp", net.JoinHostPort(loopbackFor(s.Address), fmt.Sprint(s.Port))
	case "udp", "udp6":
		network, addr = "udp", net.JoinHostPort(loopbackFor(s.Address), fmt.Sprint(s.Port))
	case "unix":
		network, addr = "unix", s.Path
	}
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s %s: %v", network, addr, err)
	}
	c.Close()
}

func loopbackFor(a string) string {
	switch a {
	case "0.0.0.0":
		return "127.0.0.1"
	case "::":
		return "::1"
	}
	return a
}

func TestListening_StartReturnsPort(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s.sock")
	cases := []struct {
		name    string
		args    map[string]any
		proto   string
		logLine string // printed right after listen(); the reply must carry it
	}{
		{name: "python http.server", proto: "tcp",
			args:    map[string]any{"argv": []string{"python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1"}},
			logLine: "Serving HTTP on 127.0.0.1 port "},
		{name: "node", proto: "tcp6",
			args:    map[string]any{"argv": []string{"node", "-e", "require('http').createServer().listen(0, () => console.log('node ready'))"}},
			logLine: "node ready"},
		{name: "silent python socket", proto: "tcp",
			args: map[string]any{"argv": []string{"python3", "-c", "import socket,time\ns=socket.socket()\ns.bind(('127.0.0.1',0))\ns.listen()\ntime.sleep(60)"}}},
		{name: "child of a child", proto: "tcp",
			args: map[string]any{"command": "sh -c 'sleep 0.2; exec python3 -c \"import socket,time; s=socket.socket(); s.bind((\\\"127.0.0.1\\\",0)); s.listen(); time.sleep(60)\"'; true"}},
		{name: "unix", proto: "unix",
			args: map[string]any{"argv": []string{"python3", "-c", "import socket,time,sys\ns=socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen()\ntime.sleep(60)", sock}}},
		{name: "udp", proto: "udp",
			args: map[string]any{"argv": []string{"python3", "-c", "import socket,time\ns=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\ns.bind(('127.0.0.1',0))\ntime.sleep(60)"}}},
	}
	c := newClient(t, session.Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"until_listening": true, "timeout_ms": 20000}
			for k, v := range tc.args {
				args[k] = v
			}
			r := c.start(args)
			defer c.call("terminate_process", map[string]any{"session_id": r.SessionID, "force": true}, nil)
			if r.Reason != "listening" || len(r.Listening) != 1 {
				t.Fatalf("reason %s listening %+v, want one socket; output %q", r.Reason, r.Listening, r.Output)
			}
			s := r.Listening[0]
			if s.Proto != tc.proto || s.PID == 0 || s.Command == "" || (s.Proto != "unix" && s.Port == 0) || (s.Proto == "unix" && s.Path != sock) {
				t.Fatalf("socket %+v, want %s", s, tc.proto)
			}
			if tc.logLine != "" && !strings.Contains(r.Output, tc.logLine) {
				t.Errorf("output %q lacks the log line %q", r.Output, tc.logLine)
			}
			if tc.logLine != "" && strings.HasPrefix(tc.logLine, "Serving") && !strings.Contains(r.Output, fmt.Sprint(s.Port)) {
				t.Errorf("output %q names another port than %d", r.Output, s.Port)
			}
			dial(t, s)
			var info InfoResult
			c.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
			if len(info.Listening) != 1 || info.Listening[0] != s {
				t.Errorf("get_session_info listening %+v, want %+v", info.Listening, s)
			}
			var list ListResult
			c.call("list_sessions", map[string]any{}, &list)
			for _, x := range list.Sessions {
				if x.ID == r.SessionID && (len(x.Listening) != 1 || x.Listening[0] != s) {
					t.Errorf("list_sessions listening %+v, want %+v", x.Listening, s)
				}
			}
		})
	}
}

func TestListening_ReadAndSendWaits(t *testing.T) {
	c := newClient(t, session.Config{})
	r := c.start(map[string]any{"argv": []string{"python3", "-q"}, "until": ">>> "})
	defer c.call("terminate_process", map[string]any{"session_id": r.SessionID, "force": true}, nil)
	// send_input: the REPL opens a socket; the reply carries it.
	var sr SendResult
	c.call("send_input", map[string]any{"session_id": r.SessionID, "enter": true, "until_listening": true, "timeout_ms": 20000,
		"text": "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()"}, &sr)
	if sr.Reason != "listening" || len(sr.Listening) != 1 {
		t.Fatalf("send_input: reason=%s listening=%+v output=%q", sr.Reason, sr.Listening, sr.Output)
	}
	first := sr.Listening[0]
	dial(t, first)
	// read_output for that port: it listens already, so at once.
	var rr ReadResult
	c.call("read_output", map[string]any{"session_id": r.SessionID, "until_listening": first.Port, "timeout_ms": 20000}, &rr)
	if rr.Reason != "listening" || len(rr.Listening) != 1 || rr.Listening[0] != first {
		t.Fatalf("read_output port: reason=%s listening=%+v", rr.Reason, rr.Listening)
	}
	// until_listening true waits for a new one: the old does not count.
	c.call("read_output", map[string]any{"session_id": r.SessionID, "until_listening": true, "return_on": []string{"listening"}, "timeout_ms": 300}, &rr)
	if rr.Reason != "timeout" || len(rr.Listening) != 1 || rr.Listening[0] != first {
		t.Fatalf("read_output any new: reason=%s listening=%+v, want timeout listing the old one", rr.Reason, rr.Listening)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"until_listening": 70000}, "port number 1-65535"},
		{map[string]any{"until_listening": "yes"}, "until_listening"},
		{map[string]any{"until_listening": true, "return_on": []string{"exit"}}, "return_on leaves out listening"},
	} {
		tc.args["session_id"] = r.SessionID
		if msg := c.toolError("read_output", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %q, want %q", tc.args, msg, tc.want)
		}
	}
}

// TestListening_SendInputOpensSocket_Loop: input that makes the program
// listen at once is awaited by its socket, every time: the baseline is
// taken before the input is written, so the socket is never mistaken for
// one that was there before (50 rounds on one REPL).
func TestListening_SendInputOpensSocket_Loop(t *testing.T) {
	c := newClient(t, session.Config{})
	r := c.start(map[string]any{"argv": []string{"python3", "-q"}, "until": ">>> "})
	defer c.call("terminate_process", map[string]any{"session_id": r.SessionID, "force": true}, nil)
	c.call("send_input", map[string]any{"session_id": r.SessionID, "enter": true, "text": "import socket; keep = []", "timeout_ms": 20000}, nil)
	seen := map[int]bool{}
	for i := range 50 {
		var sr SendResult
		c.call("send_input", map[string]any{"session_id": r.SessionID, "enter": true, "until_listening": true, "timeout_ms": 20000,
			"text": "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); keep.append(s)"}, &sr)
		if sr.Reason != "listening" || len(sr.Listening) != 1 || seen[sr.Listening[0].Port] {
			t.Fatalf("round %d: reason=%s listening=%+v (ports before: %v)", i, sr.Reason, sr.Listening, seen)
		}
		seen[sr.Listening[0].Port] = true
	}
}
