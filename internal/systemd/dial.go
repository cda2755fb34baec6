package systemd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	sd "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"
)

func (e env) lookup(k string) string {
	if e.get != nil {
		return e.get(k)
	}
	return os.Getenv(k)
}

// dialUser connects to this user's systemd manager: first its private
// socket ($XDG_RUNTIME_DIR/systemd/private, what systemctl --user uses; no
// bus daemon needed), then the session bus ($DBUS_SESSION_BUS_ADDRESS, or
// $XDG_RUNTIME_DIR/bus). It never starts a bus (no autolaunch).
func dialUser(ctx context.Context, e env) (starter, string, error) {
	var tried []string
	if rt := e.lookup("XDG_RUNTIME_DIR"); rt != "" {
		p := filepath.Join(rt, "systemd", "private")
		if _, err := os.Stat(p); err == nil {
			addr := "unix:path=" + p
			c, err := sd.NewConnection(func() (*dbus.Conn, error) { return dialAuth(ctx, addr, false) })
			if err == nil {
				return c, addr, nil
			}
			tried = append(tried, fmt.Sprintf("%s: %v", addr, err))
		}
	}
	addr := e.lookup("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" {
		if rt := e.lookup("XDG_RUNTIME_DIR"); rt != "" {
			if _, err := os.Stat(filepath.Join(rt, "bus")); err == nil {
				addr = "unix:path=" + filepath.Join(rt, "bus")
			}
		}
	}
	if addr != "" {
		c, err := sd.NewConnection(func() (*dbus.Conn, error) { return dialAuth(ctx, addr, true) })
		if err == nil {
			return c, addr, nil
		}
		tried = append(tried, fmt.Sprintf("%s: %v", addr, err))
	}
	return nil, "", joinErrs(tried)
}

// dialAuth opens a private connection to addr and authenticates as this
// uid (EXTERNAL); a bus, unlike the manager's own socket, also wants Hello.
func dialAuth(ctx context.Context, addr string, hello bool) (*dbus.Conn, error) {
	c, err := dbus.Dial(addr, dbus.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	if err := c.Auth([]dbus.Auth{dbus.AuthExternal(strconv.Itoa(os.Getuid()))}); err != nil {
		c.Close()
		return nil, err
	}
	if hello {
		if err := c.Hello(); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}
