package sshbackend

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Errors callers branch on.
var (
	// ErrUnknownHostKey: the host is not in known_hosts; the message carries
	// its fingerprint and how to trust it.
	ErrUnknownHostKey = errors.New("unknown SSH host key")
	// ErrHostKeyChanged: known_hosts has a different key for the host.
	// Nothing overrides this.
	ErrHostKeyChanged = errors.New("SSH HOST KEY CHANGED")
	// ErrAuth: the server accepted none of the credentials offered.
	ErrAuth = errors.New("SSH authentication failed")
	// ErrBadHost: the host argument cannot be parsed.
	ErrBadHost = errors.New("invalid host")
	// ErrConnect: the host could not be reached.
	ErrConnect = errors.New("cannot connect")
	// ErrLost: the connection of a session dropped.
	ErrLost = errors.New("SSH connection lost")
)

// Secret is a password or key passphrase. Exactly one source is used: Value
// (from the configuration file) or Env (the name of an environment variable
// read at connect time). Its String never shows the value.
type Secret struct {
	Value string
	Env   string
}

// String hides the value so a Secret can be logged safely.
func (s Secret) String() string {
	switch {
	case s.Env != "":
		return "$" + s.Env
	case s.Value != "":
		return "(configured)"
	}
	return "(none)"
}

// get returns the secret's value, or "" when none is set.
func (s Secret) get() string {
	if s.Env != "" {
		return os.Getenv(s.Env)
	}
	return s.Value
}

func (s Secret) set() bool { return s.Env != "" || s.Value != "" }

// HostAuth holds the secrets for hosts matching a pattern.
type HostAuth struct {
	Password   Secret // password and keyboard-interactive answers
	Passphrase Secret // passphrase of encrypted identity files
}

// Options configure a Pool; the zero value uses the user's ~/.ssh files and
// ssh-agent.
type Options struct {
	// ConfigFile replaces ~/.ssh/config and /etc/ssh/ssh_config when set.
	ConfigFile string
	// KnownHosts is the known_hosts file checked and appended to;
	// default ~/.ssh/known_hosts.
	KnownHosts string
	// AgentSocket overrides SSH_AUTH_SOCK; "none" disables the agent.
	AgentSocket string
	// Auth maps a host to its secrets. Keys are tried in this order: the
	// host argument as given (alias or user@host[:port]), user@host:port,
	// user@host and host (after ~/.ssh/config), then "*".
	Auth map[string]HostAuth
	// Keepalive is the interval of keepalive requests (default 15 s);
	// KeepaliveMax missed replies drop the connection (default 3).
	Keepalive    time.Duration
	KeepaliveMax int
	// DialTimeout bounds the TCP connect and SSH handshake (default 15 s).
	DialTimeout time.Duration
	Logger      *slog.Logger
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	home, _ := os.UserHomeDir()
	if c.KnownHosts == "" {
		c.KnownHosts = filepath.Join(home, ".ssh", "known_hosts")
	}
	if c.AgentSocket == "" {
		c.AgentSocket = os.Getenv("SSH_AUTH_SOCK")
	}
	if c.Keepalive <= 0 {
		c.Keepalive = 15 * time.Second
	}
	if c.KeepaliveMax <= 0 {
		c.KeepaliveMax = 3
	}
	if c.DialTimeout <= 0 {
		c.DialTimeout = 15 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// authFor picks the secrets for a host.
func (o *Options) authFor(t target) HostAuth {
	for _, k := range []string{t.Arg, t.Key(), t.User + "@" + t.HostName, t.HostName, "*"} {
		if a, ok := o.Auth[k]; ok {
			return a
		}
	}
	return HostAuth{}
}

// ParseSecretFlag parses "HOST=ENVVAR" as used by the -ssh-password-env and
// -ssh-passphrase-env flags.
func ParseSecretFlag(v string) (host, env string, err error) {
	host, env, ok := strings.Cut(v, "=")
	if !ok || host == "" || env == "" {
		return "", "", fmt.Errorf("want HOST=ENV_VAR (HOST an ssh alias, user@host[:port], host name or *), got %q", v)
	}
	return host, env, nil
}
