package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// ConnectOptions say which daemon a client wants.
type ConnectOptions struct {
	Socket   string
	Version  string            // the client's agentty version
	Settings map[string]string // the client's configuration (see Fingerprint)
	// Spawn starts a daemon with the client's configuration and returns
	// once it listens (or another one does).
	Spawn func(ctx context.Context) error
	// Warn says something the person should know (an older or newer
	// daemon, a replaced one); nil: nothing is said.
	Warn func(msg string)
}

// attempts bounds how often Connect starts over after a daemon went away
// under it (it reached its idle exit, it was replaced).
const attempts = 10

// Connect finds the daemon on the socket, starting one when none runs, and
// opens an MCP stream to it. A daemon of an older version than the client,
// or one with other settings, is replaced when idle. A busy daemon of
// another version is used with a warning; a busy one with other settings
// is an error matching ErrConfigDiffers that names the settings (serve
// then serves its client standalone).
func Connect(ctx context.Context, o ConnectOptions) (net.Conn, error) {
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	fp := Fingerprint(o.Settings)
	var last error
	leaving := time.Now().Add(clientsLeave)
	for range attempts {
		st, err := GetStatus(ctx, o.Socket)
		if errors.Is(err, ErrNoDaemon) {
			if err := o.Spawn(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		replace, err := judge(st, o.Version, fp, o.Settings, warn)
		if err != nil && st.Sessions == 0 && st.Clients > 0 && time.Now().Before(leaving) {
			// Busy with clients only: an MCP client restarted with new
			// settings is one whose old serve has just exited, and the
			// daemon sees its connection end a moment later.
			waitClientsGone(ctx, o.Socket, leaving)
			continue
		}
		if err != nil {
			return nil, err
		}
		if replace {
			if err := Stop(ctx, o.Socket); err != nil && !errors.Is(err, ErrNoDaemon) {
				if !errors.Is(err, ErrBusy) {
					return nil, err
				}
				// It became busy meanwhile: judge it again as busy.
			}
			continue
		}
		conn, err := Upgrade(ctx, o.Socket, o.Version, fp)
		if errors.Is(err, ErrNoDaemon) || errors.Is(err, ErrConfigDiffers) {
			last = err
			continue
		}
		return conn, err
	}
	return nil, fmt.Errorf("no daemon to connect to after %d attempts: %w", attempts, last)
}

// clientsLeave is how long Connect waits for the clients of a daemon with
// other settings and no sessions to go before calling it busy.
const clientsLeave = 2 * time.Second

// waitClientsGone polls the daemon's status until it has no clients, is
// gone, or until passes.
func waitClientsGone(ctx context.Context, socket string, until time.Time) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		st, err := GetStatus(ctx, socket)
		if err != nil || st.Clients == 0 || !time.Now().Before(until) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// judge decides whether to replace the daemon st describes (true), use it
// (false, nil), or give up.
func judge(st Status, version, fp string, settings map[string]string, warn func(string)) (bool, error) {
	if st.Version != version {
		if Newer(version, st.Version) && st.Idle() {
			warn(fmt.Sprintf("the running daemon (pid %d) is agentty %s, older than this serve's %s, and idle: replacing it", st.PID, st.Version, version))
			return true, nil
		}
		warn(fmt.Sprintf("the running daemon (pid %d) is agentty %s and this serve is %s; using it (%s)", st.PID, st.Version, version, busyText(st)))
	}
	if st.Fingerprint == fp {
		return false, nil
	}
	diff := strings.Join(Diff(st.Settings, settings), "; ")
	if st.Idle() {
		warn(fmt.Sprintf("the running daemon (pid %d) is idle and runs with other settings (%s): replacing it", st.PID, diff))
		return true, nil
	}
	return false, fmt.Errorf("%w (pid %d, %s): %s", ErrConfigDiffers, st.PID, busyText(st), diff)
}

func busyText(st Status) string {
	if st.Idle() {
		return "idle"
	}
	return count(st.Sessions, "session") + " running, " + count(st.Clients, "client") + " connected"
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Newer reports whether version a is newer than b: dotted numbers compared
// as numbers ("v" prefix ignored), a release newer than its pre-releases
// ("1.2.0" > "1.2.0-dev"); versions that do not parse compare as strings.
func Newer(a, b string) bool {
	an, ap, aok := parseVersion(a)
	bn, bp, bok := parseVersion(b)
	if !aok || !bok {
		return a > b
	}
	for i := range max(len(an), len(bn)) {
		var x, y int
		if i < len(an) {
			x = an[i]
		}
		if i < len(bn) {
			y = bn[i]
		}
		if x != y {
			return x > y
		}
	}
	switch {
	case ap == bp:
		return false
	case ap == "":
		return true
	case bp == "":
		return false
	}
	return ap > bp
}

func parseVersion(v string) (nums []int, pre string, ok bool) {
	v = strings.TrimPrefix(v, "v")
	v, pre, _ = strings.Cut(v, "-")
	for p := range strings.SplitSeq(v, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, "", false
		}
		nums = append(nums, n)
	}
	return nums, pre, len(nums) > 0
}
