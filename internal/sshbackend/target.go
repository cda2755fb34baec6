package sshbackend

import (
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kevinburke/ssh_config"

	"github.com/agentty/agentty/internal/excerpt"
)

// target is one host to connect to, after ~/.ssh/config was applied.
type target struct {
	Arg        string   // the host argument as given
	User       string   // login user
	HostName   string   // address to dial
	Port       int      // TCP port
	Identities []string // identity files from the config (expanded)
	ProxyJump  string   // jump hosts, comma separated, "" for none
}

// Key is the pool key: one connection per (user, host, port).
func (t target) Key() string {
	return t.User + "@" + net.JoinHostPort(t.HostName, strconv.Itoa(t.Port))
}

// addr is the dial address.
func (t target) addr() string { return net.JoinHostPort(t.HostName, strconv.Itoa(t.Port)) }

// configSource answers ssh_config lookups.
type configSource interface {
	Get(alias, key string) string
	GetAll(alias, key string) []string
}

// loadConfig reads the ssh configuration afresh, so edits apply to the next
// connection without a restart.
func loadConfig(file string) configSource {
	u := &ssh_config.UserSettings{IgnoreErrors: true}
	if file != "" {
		u.ConfigFinder(func() string { return file })
	}
	return u
}

// parseTarget splits "user@host[:port]" (or an alias) and applies the ssh
// configuration: HostName, User, Port, IdentityFile, ProxyJump.
func parseTarget(arg string, cfg configSource) (target, error) {
	t := target{Arg: arg}
	if arg == "" || strings.ContainsAny(arg, " \t\r\n/") || strings.HasPrefix(arg, "-") {
		return t, fmt.Errorf("%w: %s; give user@host, user@host:port or an alias from ~/.ssh/config", ErrBadHost, excerpt.Q(arg))
	}
	rest := arg
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		t.User, rest = rest[:at], rest[at+1:]
		if t.User == "" {
			return t, fmt.Errorf("%w: %s has an empty user name", ErrBadHost, excerpt.Q(arg))
		}
	}
	host, port := rest, ""
	if h, p, err := net.SplitHostPort(rest); err == nil {
		host, port = h, p
	} else if strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]") {
		host = rest[1 : len(rest)-1]
	}
	if host == "" {
		return t, fmt.Errorf("%w: %s has no host name", ErrBadHost, excerpt.Q(arg))
	}
	alias := host
	t.HostName = host
	if hn := cfg.Get(alias, "HostName"); hn != "" {
		t.HostName = strings.ReplaceAll(hn, "%h", host)
	}
	if t.User == "" {
		t.User = cfg.Get(alias, "User")
	}
	if t.User == "" {
		if u, err := user.Current(); err == nil {
			t.User = u.Username
		}
	}
	if port == "" {
		port = cfg.Get(alias, "Port")
	}
	if port == "" {
		port = "22"
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return t, fmt.Errorf("%w: port %s of %s is not a number 1-65535", ErrBadHost, excerpt.Q(port), excerpt.Q(arg))
	}
	t.Port = n
	for _, f := range cfg.GetAll(alias, "IdentityFile") {
		if f == ssh_config.Default("IdentityFile") {
			continue // the library's placeholder: nothing configured, so the usual defaults apply
		}
		if f = expandPath(f, t); f != "" {
			t.Identities = append(t.Identities, f)
		}
	}
	if pj := cfg.Get(alias, "ProxyJump"); pj != "" && !strings.EqualFold(pj, "none") {
		t.ProxyJump = pj
	}
	return t, nil
}

// expandPath applies ~ and the common % tokens of IdentityFile.
func expandPath(p string, t target) string {
	home, _ := os.UserHomeDir()
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(home, p[1:])
	}
	p = strings.NewReplacer("%d", home, "%u", t.User, "%r", t.User, "%h", t.HostName, "%%", "%").Replace(p)
	return p
}
