package main

import (
	"flag"
	"log/slog"
	"strings"

	"github.com/agentty/agentty/internal/sshbackend"
)

// sshFlags are serve's SSH settings. Secrets are named by environment
// variable, so they never appear on a command line, in a tool argument or
// in a log; a configuration file can fill sshbackend.Options the same way.
type sshFlags struct {
	config, knownHosts string
	passwords          secretFlag
	passphrases        secretFlag
}

// secretFlag collects repeated HOST=ENV_VAR values.
type secretFlag map[string]string

func (f secretFlag) String() string {
	var parts []string
	for h, e := range f {
		parts = append(parts, h+"="+e)
	}
	return strings.Join(parts, ",")
}

func (f secretFlag) Set(v string) error {
	h, e, err := sshbackend.ParseSecretFlag(v)
	if err != nil {
		return err
	}
	f[h] = e
	return nil
}

func addSSHFlags(fs *flag.FlagSet) *sshFlags {
	s := &sshFlags{passwords: secretFlag{}, passphrases: secretFlag{}}
	fs.StringVar(&s.config, "ssh-config", "", "ssh config file for host aliases (default ~/.ssh/config and /etc/ssh/ssh_config)")
	fs.StringVar(&s.knownHosts, "ssh-known-hosts", "", "known_hosts file checked and extended by accept_new_host_key (default ~/.ssh/known_hosts)")
	fs.Var(s.passwords, "ssh-password-env", "HOST=VAR: the SSH password for HOST (alias, user@host[:port], host name or *) is in environment variable VAR; repeatable")
	fs.Var(s.passphrases, "ssh-passphrase-env", "HOST=VAR: passphrase of encrypted identity files for HOST is in environment variable VAR; repeatable")
	return s
}

// pool builds the SSH connection pool from the flags.
func (s *sshFlags) pool(logger *slog.Logger) *sshbackend.Pool {
	auth := map[string]sshbackend.HostAuth{}
	for h, e := range s.passwords {
		a := auth[h]
		a.Password = sshbackend.Secret{Env: e}
		auth[h] = a
	}
	for h, e := range s.passphrases {
		a := auth[h]
		a.Passphrase = sshbackend.Secret{Env: e}
		auth[h] = a
	}
	return sshbackend.NewPool(&sshbackend.Options{ConfigFile: s.config, KnownHosts: s.knownHosts, Auth: auth, Logger: logger})
}
