//go:build windows

package daemon

import "testing"

// TestDefaultSocket_LocalAppData: on Windows the socket goes in the local
// application data directory, else under the state directory.
func TestDefaultSocket_LocalAppData(t *testing.T) {
	cases := []struct {
		name, appdata, state, want string
	}{
		{"local app data", `C:\Users\ann\AppData\Local`, `C:\Users\ann\.local\state\agentty`, `C:\Users\ann\AppData\Local\agentty\agentty.sock`},
		{"relative ignored", `AppData`, `C:\state`, `C:\state\run\agentty.sock`},
		{"none", ``, `C:\state`, `C:\state\run\agentty.sock`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "LOCALAPPDATA" {
					return c.appdata
				}
				return ""
			}
			if got, err := DefaultSocket(getenv, c.state); err != nil || got != c.want {
				t.Fatalf("DefaultSocket = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}
