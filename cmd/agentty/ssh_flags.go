package main

import (
	"flag"
	"strings"

	core "github.com/agentty/agentty/internal/server"
)

// sshFlags are serve's SSH settings. Secrets are named by environment
// variable, so they never appear on a command line, in a tool argument or
// in a log; a configuration file can fill core.SSHOptions the same way.
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
	h, e, err := core.ParseSecretFlag(v)
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

// sshSection is the configuration file's [ssh] table: per-host secrets
// that must never pass through the model. The file lives in agentty's
// configuration directory, which agents can neither read through a command
// nor write.
//
//	[ssh.hosts."deploy@prod"]
//	password_env = "PROD_PASSWORD"   # or password = "..."
//	[ssh.hosts."*"]
//	passphrase_env = "SSH_KEY_PASSPHRASE"
type sshSection struct {
	Hosts map[string]sshHostSecrets `toml:"hosts"`
}

type sshHostSecrets struct {
	Password      string `toml:"password"`
	PasswordEnv   string `toml:"password_env"`
	Passphrase    string `toml:"passphrase"`
	PassphraseEnv string `toml:"passphrase_env"`
}

// options builds the SSH pool's options from the configuration file's
// [ssh] section and the flags; a flag overrides the file for the same host.
func (s *sshFlags) options(sec sshSection) *core.SSHOptions {
	auth := map[string]core.SSHHostAuth{}
	for h, v := range sec.Hosts {
		auth[h] = core.SSHHostAuth{Password: core.SSHSecret{Value: v.Password, Env: v.PasswordEnv},
			Passphrase: core.SSHSecret{Value: v.Passphrase, Env: v.PassphraseEnv}}
	}
	for h, e := range s.passwords {
		a := auth[h]
		a.Password = core.SSHSecret{Env: e}
		auth[h] = a
	}
	for h, e := range s.passphrases {
		a := auth[h]
		a.Passphrase = core.SSHSecret{Env: e}
		auth[h] = a
	}
	return &core.SSHOptions{ConfigFile: s.config, KnownHosts: s.knownHosts, Auth: auth}
}
