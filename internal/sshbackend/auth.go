package sshbackend

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// authPlan is the credentials offered to one host, in the order OpenSSH
// offers them: agent keys and key files, then password, then
// keyboard-interactive. notes says what was skipped and why, for the error
// an agent sees when nothing works.
type authPlan struct {
	methods []ssh.AuthMethod
	tried   []string
	notes   []string
	closers []func()
}

func (a *authPlan) close() {
	for _, c := range a.closers {
		c()
	}
}

// defaultIdentities are the key files ssh tries when the config names none.
var defaultIdentities = []string{"id_ed25519", "id_ecdsa", "id_rsa"}

func buildAuth(t target, o *Options) *authPlan {
	a := &authPlan{}
	secrets := o.authFor(t)
	var signers []ssh.Signer
	if sock := o.AgentSocket; sock != "" && sock != "none" {
		if c, err := net.Dial("unix", sock); err != nil {
			a.notes = append(a.notes, "ssh-agent at SSH_AUTH_SOCK not reachable")
		} else {
			a.closers = append(a.closers, func() { c.Close() })
			if s, err := agent.NewClient(c).Signers(); err == nil && len(s) > 0 {
				signers = append(signers, s...)
				a.tried = append(a.tried, fmt.Sprintf("ssh-agent (%d keys)", len(s)))
			} else {
				a.notes = append(a.notes, "ssh-agent has no keys")
			}
		}
	}
	files := t.Identities
	if len(files) == 0 {
		home, _ := os.UserHomeDir()
		for _, n := range defaultIdentities {
			files = append(files, filepath.Join(home, ".ssh", n))
		}
	}
	for _, f := range files {
		s, note := loadKey(f, secrets.Passphrase, len(t.Identities) > 0)
		if s != nil {
			signers = append(signers, s)
			a.tried = append(a.tried, "key "+f)
		}
		if note != "" {
			a.notes = append(a.notes, note)
		}
	}
	if len(signers) > 0 {
		a.methods = append(a.methods, ssh.PublicKeys(signers...))
	}
	if secrets.Password.set() {
		pw := secrets.Password
		a.tried = append(a.tried, "password from "+pw.String())
		a.methods = append(a.methods,
			ssh.PasswordCallback(func() (string, error) { return pw.get(), nil }),
			ssh.KeyboardInteractive(func(_, _ string, questions []string, echos []bool) ([]string, error) {
				answers := make([]string, len(questions))
				for i, q := range questions {
					// Only secret prompts get the password; anything else
					// (a one-time code) cannot be answered unattended.
					if !echos[i] && strings.Contains(strings.ToLower(q), "password") {
						answers[i] = pw.get()
					}
				}
				return answers, nil
			}))
	} else {
		a.notes = append(a.notes, "no password configured for this host")
	}
	return a
}

// loadKey reads one private key file. Missing default files are silent;
// a configured file that is missing or locked gets a note.
func loadKey(file string, pass Secret, configured bool) (ssh.Signer, string) {
	b, err := os.ReadFile(file)
	if err != nil {
		if configured || !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Sprintf("identity file %s: %v", file, errors.Unwrap(err))
		}
		return nil, ""
	}
	s, err := ssh.ParsePrivateKey(b)
	var missing *ssh.PassphraseMissingError
	switch {
	case err == nil:
		return s, ""
	case errors.As(err, &missing):
		if !pass.set() {
			return nil, fmt.Sprintf("identity file %s is encrypted and no passphrase is configured", file)
		}
		s, err = ssh.ParsePrivateKeyWithPassphrase(b, []byte(pass.get()))
		if err != nil {
			return nil, fmt.Sprintf("identity file %s: the configured passphrase does not decrypt it", file)
		}
		return s, ""
	}
	return nil, fmt.Sprintf("identity file %s: not a private key agentty can read", file)
}

// authError explains a refused login without ever including a secret.
func authError(t target, a *authPlan, err error) error {
	tried := "nothing"
	if len(a.tried) > 0 {
		tried = strings.Join(a.tried, ", ")
	}
	notes := ""
	if len(a.notes) > 0 {
		notes = "; " + strings.Join(a.notes, "; ")
	}
	return fmt.Errorf("%w for %s (offered: %s%s; server: %s). Fix: load a key into ssh-agent, name an IdentityFile in ~/.ssh/config, "+
		"or configure the password (agentty serve -ssh-password-env %s=VAR with the password in $VAR); passwords are never tool arguments",
		ErrAuth, t.Key(), tried, notes, serverSaid(err), t.Arg)
}

// serverSaid keeps the library's "unable to authenticate, attempted
// methods [...]" part of a handshake error.
func serverSaid(err error) string {
	s := err.Error()
	if i := strings.Index(s, "unable to authenticate"); i >= 0 {
		return s[i:]
	}
	return s
}
