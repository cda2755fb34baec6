package sshbackend

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// hostKeys checks server keys against one known_hosts file. There is no
// option to skip the check: an unknown key is refused with its fingerprint
// unless the caller asked to trust it on first use, and a changed key is
// always refused.
type hostKeys struct {
	file string
	mu   sync.Mutex // serializes reading and appending the file
}

// unknownKeyError carries what the agent needs to decide to trust a host.
type unknownKeyError struct {
	host        string
	fingerprint string
	keyType     string
}

func (e *unknownKeyError) Error() string {
	return fmt.Sprintf("%v: %s offers %s key %s, which is not in known_hosts. "+
		"Compare the fingerprint with the one the host's administrator gives (on the host: ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub); "+
		"to trust it, call start_process again with accept_new_host_key: true, which records it in known_hosts",
		ErrUnknownHostKey, e.host, e.keyType, e.fingerprint)
}

func (e *unknownKeyError) Unwrap() error { return ErrUnknownHostKey }

// callback returns the host key check for one dial. accept records an
// unknown key (trust on first use); it never accepts a changed one.
func (h *hostKeys) callback(accept bool) ssh.HostKeyCallback {
	return func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		check, err := h.load()
		if err != nil {
			return err
		}
		err = check(hostname, remote, key)
		var ke *knownhosts.KeyError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ke) && len(ke.Want) > 0:
			var want []string
			for _, w := range ke.Want {
				want = append(want, fmt.Sprintf("%s %s (%s:%d)", w.Key.Type(), ssh.FingerprintSHA256(w.Key), w.Filename, w.Line))
			}
			return fmt.Errorf("%w for %s: it now offers %s %s but known_hosts has %s. "+
				"Someone may be intercepting the connection (man-in-the-middle), or the host was reinstalled. "+
				"agentty will not connect; if the administrator confirms the new key, remove the old entry (ssh-keygen -R %s -f %s) and connect again",
				ErrHostKeyChanged, hostname, key.Type(), ssh.FingerprintSHA256(key), strings.Join(want, ", "), knownhosts.Normalize(hostname), h.file)
		case errors.As(err, &ke):
			if !accept {
				return &unknownKeyError{host: hostname, fingerprint: ssh.FingerprintSHA256(key), keyType: key.Type()}
			}
			return h.add(hostname, key)
		case errors.Is(err, &knownhosts.RevokedError{}):
			return fmt.Errorf("%w: the key of %s is marked @revoked in %s", ErrHostKeyChanged, hostname, h.file)
		}
		return fmt.Errorf("host key check for %s: %w", hostname, err)
	}
}

// load parses the file afresh so keys recorded by other programs count.
func (h *hostKeys) load() (ssh.HostKeyCallback, error) {
	if _, err := os.Stat(h.file); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(h.file), 0o700); err != nil {
			return nil, fmt.Errorf("known_hosts: %w", err)
		}
		if err := os.WriteFile(h.file, nil, 0o600); err != nil {
			return nil, fmt.Errorf("known_hosts: %w", err)
		}
	}
	cb, err := knownhosts.New(h.file)
	if err != nil {
		return nil, fmt.Errorf("read known_hosts %s: %w", h.file, err)
	}
	return cb, nil
}

// add appends a trusted-on-first-use key.
func (h *hostKeys) add(hostname string, key ssh.PublicKey) error {
	f, err := os.OpenFile(h.file, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("record host key in %s: %w", h.file, err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, knownhosts.Line([]string{knownhosts.Normalize(hostname)}, key)); err != nil {
		return fmt.Errorf("record host key in %s: %w", h.file, err)
	}
	return nil
}

// algorithms lists the key types known_hosts holds for addr, so the server
// is asked for a key we can check rather than one that only looks changed.
func (h *hostKeys) algorithms(addr string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	check, err := h.load()
	if err != nil {
		return nil
	}
	// A throwaway key never matches; the error lists the known ones.
	err = check(addr, &net.TCPAddr{IP: net.IPv4zero}, probeKey)
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) || len(ke.Want) == 0 {
		return nil
	}
	var algos []string
	for _, w := range ke.Want {
		switch t := w.Key.Type(); t {
		case ssh.KeyAlgoRSA:
			algos = append(algos, ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
		default:
			algos = append(algos, t)
		}
	}
	return algos
}

// probeKey is a fixed public key used only to ask known_hosts which keys it
// has for an address.
var probeKey = func() ssh.PublicKey {
	k, err := ssh.ParsePublicKey(probeKeyWire)
	if err != nil {
		panic(err)
	}
	return k
}()

// probeKeyWire is an ed25519 public key in wire format whose point is all
// zeros: no host has it, and it is never used to verify anything.
var probeKeyWire = func() []byte {
	b := []byte{0, 0, 0, 11}
	b = append(b, "ssh-ed25519"...)
	b = append(b, 0, 0, 0, 32)
	return append(b, make([]byte, 32)...)
}()
