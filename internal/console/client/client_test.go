package client

import "testing"

func TestSocketPath_AsTheDaemon(t *testing.T) {
	for _, c := range []struct {
		name             string
		sock, run, state string
		want             string
	}{
		{"env", "/x/s.sock", "/run/user/1", "/st", "/x/s.sock"},
		{"runtime dir", "", "/run/user/1000", "/st", "/run/user/1000/agentty/agentty.sock"},
		{"relative runtime dir ignored", "", "run", "/st", "/st/agentty/run/agentty.sock"},
		{"no runtime dir", "", "", "/home/u/.local/state", "/home/u/.local/state/agentty/run/agentty.sock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(SocketEnv, c.sock)
			t.Setenv("XDG_RUNTIME_DIR", c.run)
			t.Setenv("XDG_STATE_HOME", c.state)
			got, err := SocketPath()
			if err != nil || got != c.want {
				t.Errorf("SocketPath() = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}
