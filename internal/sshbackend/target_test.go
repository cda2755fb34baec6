package sshbackend

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

func TestParseTarget_ConfigAndForms(t *testing.T) {
	cfgFile := filepath.Join(t.TempDir(), "config")
	cfg := "Host web\n  HostName 10.1.2.3\n  User deploy\n  Port 2200\n  IdentityFile ~/.ssh/web_key\n  ProxyJump bastion\n\nHost bastion\n  HostName bastion.example\n"
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	src := loadConfig(cfgFile)
	tests := []struct {
		arg       string
		key, jump string
		ids       []string
		err       error
	}{
		{arg: "web", key: "deploy@10.1.2.3:2200", jump: "bastion", ids: []string{filepath.Join(home, ".ssh/web_key")}},
		{arg: "root@web", key: "root@10.1.2.3:2200", jump: "bastion", ids: []string{filepath.Join(home, ".ssh/web_key")}},
		{arg: "ann@web:2222", key: "ann@10.1.2.3:2222", jump: "bastion", ids: []string{filepath.Join(home, ".ssh/web_key")}},
		{arg: "bob@example.org", key: "bob@example.org:22"},
		{arg: "bob@[::1]:2022", key: "bob@[::1]:2022"},
		{arg: "bob@host:0", err: ErrBadHost},
		{arg: "bob@host:x", err: ErrBadHost},
		{arg: "@host", err: ErrBadHost},
		{arg: "-oProxyCommand=x", err: ErrBadHost},
		{arg: "a b", err: ErrBadHost},
		{arg: "", err: ErrBadHost},
	}
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			got, err := parseTarget(tc.arg, src)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Key() != tc.key || got.ProxyJump != tc.jump || strings.Join(got.Identities, ",") != strings.Join(tc.ids, ",") {
				t.Fatalf("got key=%s jump=%q ids=%v", got.Key(), got.ProxyJump, got.Identities)
			}
		})
	}
}

func TestSecret_NeverPrinted(t *testing.T) {
	t.Setenv("AGENTTY_TEST_SECRET", "s3cr3t")
	for _, s := range []Secret{{Value: "s3cr3t"}, {Env: "AGENTTY_TEST_SECRET"}} {
		if strings.Contains(s.String(), "s3cr3t") {
			t.Fatalf("String() = %q shows the secret", s.String())
		}
		if s.get() != "s3cr3t" {
			t.Fatalf("get() = %q", s.get())
		}
	}
}

// TestParseProbe: the helper's answers are judged by inputwait.Remote
// (tested there) and their detail says it came from the remote host.
func TestParseProbe(t *testing.T) {
	tests := []struct {
		in, state, detail string
		bad               bool
	}{
		{in: "g 120 1 42 x86_64 0 - p 42 3 cat s 42 0 0x0 0x7f00 0x1 0x0 0x0 0x0 i 0 pipe", state: "awaiting_input",
			detail: "remote pid 42 (cat) in read on fd 0 (pipe) (remote /proc probe)"},
		{in: "r 0 0 0 root process 9 has exited", state: "running", detail: "remote root process 9 has exited (remote /proc probe)"},
		{in: "garbage", state: "running", bad: true},
		{in: "r x 1 2 detail", state: "running", bad: true},
	}
	for _, tc := range tests {
		p, err := parseProbe(tc.in)
		if (err != nil) != tc.bad || string(p.State) != tc.state || (!tc.bad && p.Detail != tc.detail) {
			t.Fatalf("%q: state=%s detail=%q err=%v", tc.in, p.State, p.Detail, err)
		}
	}
}

func TestLoadKey_EncryptedNeedsPassphrase(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	blk, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "", []byte("open sesame"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "id_locked")
	if err := os.WriteFile(file, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		pass Secret
		ok   bool
		note string
	}{
		{name: "no passphrase configured", note: "encrypted and no passphrase is configured"},
		{name: "wrong passphrase", pass: Secret{Value: "nope"}, note: "does not decrypt it"},
		{name: "right passphrase", pass: Secret{Value: "open sesame"}, ok: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, note := loadKey(file, tc.pass, true)
			if (s != nil) != tc.ok || !strings.Contains(note, tc.note) || strings.Contains(note, "open sesame") || strings.Contains(note, "nope") {
				t.Fatalf("signer=%v note=%q", s != nil, note)
			}
		})
	}
}

func TestOptions_AuthForMostSpecific(t *testing.T) {
	o := &Options{Auth: map[string]HostAuth{
		"web":                {Password: Secret{Value: "alias"}},
		"deploy@10.0.0.5:22": {Password: Secret{Value: "key"}},
		"deploy@10.0.0.5":    {Password: Secret{Value: "user-host"}},
		"10.0.0.5":           {Password: Secret{Value: "host"}},
		"*":                  {Password: Secret{Value: "any"}},
	}}
	tg := target{Arg: "web", User: "deploy", HostName: "10.0.0.5", Port: 22}
	for _, drop := range []string{"", "web", "deploy@10.0.0.5:22", "deploy@10.0.0.5", "10.0.0.5", "*"} {
		delete(o.Auth, drop)
		got := o.authFor(tg).Password.Value
		want := map[string]string{"": "alias", "web": "key", "deploy@10.0.0.5:22": "user-host", "deploy@10.0.0.5": "host", "10.0.0.5": "any", "*": ""}[drop]
		if got != want {
			t.Fatalf("after dropping %q: %q, want %q", drop, got, want)
		}
	}
}
