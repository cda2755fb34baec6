package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// The HTTP protocol on the socket.
const (
	// MCPPath upgrades to a newline-delimited JSON-RPC stream.
	MCPPath = "/v1/mcp"
	// StatusPath answers GET with a Status.
	StatusPath = "/v1/daemon"
	// StopPath answers POST: 200 and the daemon exits when it is idle, 409
	// with the reason when it is not.
	StopPath = "/v1/daemon/stop"
	// WebPath answers POST (a WebRequest body, or none) with a WebReply,
	// opening the web view when none is served.
	WebPath = "/v1/daemon/web"
	// DefaultWebAddr is where WebPath opens the web view unless asked
	// otherwise: loopback, on a port the system chooses.
	DefaultWebAddr = "127.0.0.1:0"
	// UpgradeToken is the Upgrade header's protocol name.
	UpgradeToken = "agentty-mcp"

	// HeaderVersion carries the client's agentty version.
	HeaderVersion = "Agentty-Version"
	// HeaderConfig carries the client's configuration fingerprint; the
	// daemon answers 409 to an upgrade whose fingerprint is not its own.
	HeaderConfig = "Agentty-Config"
	// HeaderDir carries the client's working directory: the default cwd
	// of the local sessions it starts, as with a standalone serve.
	HeaderDir = "Agentty-Dir"
	// HeaderEnv carries the client's environment (EncodeEnv): the
	// environment the local sessions it starts begin from, as with a
	// standalone serve.
	HeaderEnv = "Agentty-Env"
)

// Status is what GET /v1/daemon reports.
type Status struct {
	Version     string `json:"version"`
	PID         int    `json:"pid"`
	Fingerprint string `json:"config_fingerprint"`
	// Settings are the configuration the fingerprint is made of, so a
	// client with another one can say which settings differ.
	Settings map[string]string `json:"settings"`
	Sessions int               `json:"sessions_running"`
	Clients  int               `json:"clients_connected"`
	// IdleSince is when the daemon last became idle (no session running,
	// no client connected); zero while it is busy.
	IdleSince time.Time `json:"idle_since,omitzero"`
	// IdleExit is the idle period after which it exits; 0: never.
	IdleExit string `json:"idle_exit"`
}

// WebRequest is what POST WebPath may carry.
type WebRequest struct {
	// Addr is the loopback host:port to serve the web view on ("":
	// DefaultWebAddr); a web view served already is kept where it is.
	Addr string `json:"addr,omitempty"`
}

// WebReply is what POST WebPath answers.
type WebReply struct {
	URL     string    `json:"url"`       // the web view (scheme://host:port)
	Login   string    `json:"login_url"` // a one-time login URL for it
	Expires time.Time `json:"expires"`   // when Login stops working
}

// Idle reports whether no session runs and no client is connected.
func (s Status) Idle() bool { return s.Sessions == 0 && s.Clients == 0 }

// Fingerprint hashes settings: equal settings, equal fingerprints.
func Fingerprint(settings map[string]string) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		fmt.Fprintf(h, "%s=%q\n", k, settings[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Diff lists the settings whose values differ, one "name: daemon X, this
// serve Y" per setting, sorted by name.
func Diff(daemon, client map[string]string) []string {
	var out []string
	all := maps.Clone(daemon)
	if all == nil {
		all = map[string]string{}
	}
	maps.Copy(all, client)
	keys := slices.Sorted(maps.Keys(all))
	for _, k := range keys {
		d, dok := daemon[k]
		c, cok := client[k]
		if d == c && dok == cok {
			continue
		}
		out = append(out, fmt.Sprintf("%s: daemon %s, this serve %s", k, show(d, dok), show(c, cok)))
	}
	return out
}

func show(v string, ok bool) string {
	switch {
	case !ok:
		return "(not set)"
	case v == "":
		return `""`
	case strings.ContainsAny(v, " \t"):
		return fmt.Sprintf("%q", v)
	}
	return v
}
