package policy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func mustNew(t *testing.T, o Options) *Policy {
	t.Helper()
	if o.PathEnv == "" {
		o.PathEnv = "/usr/local/bin:/usr/bin:/bin"
	}
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckArgv_Rules(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	python, err := filepath.EvalSymlinks("/usr/bin/python3")
	if err != nil {
		t.Skip("no /usr/bin/python3")
	}
	cases := []struct {
		name    string
		rules   Rules
		argv    []string
		cwd     string
		verdict Verdict
		rule    string
	}{
		{"no rules", Rules{}, []string{"rm", "-rf", "x"}, work, Allow, ""},
		{"deny basename anywhere", Rules{Deny: []string{"rm"}}, []string{"/tmp/x/rm"}, work, Refuse, RuleDeny},
		{"deny wins over allow", Rules{Allow: []string{"rm"}, Deny: []string{"rm"}}, []string{"rm"}, work, Refuse, RuleDeny},
		{"absolute entry via PATH", Rules{Allow: []string{python}}, []string{"python3", "-V"}, work, Allow, ""},
		{"absolute entry exact", Rules{Allow: []string{"/usr/bin/python3"}}, []string{"/usr/bin/python3"}, work, Allow, ""},
		{"absolute entry other file", Rules{Allow: []string{"/usr/bin/python3"}}, []string{"ls"}, work, Refuse, RuleAllow},
		{"relative entry exact", Rules{Allow: []string{"./build.sh"}}, []string{"./build.sh"}, work, Allow, ""},
		{"relative entry other spelling", Rules{Allow: []string{"./build.sh"}}, []string{"build.sh"}, work, Refuse, RuleAllow},
		{"deny pattern on argv", Rules{DenyPatterns: []string{`rm\s+-rf`}}, []string{"rm", "-rf", "/"}, work, Refuse, RuleDenyPatterns},
		{"cwd inside root", Rules{Cwd: []string{root}}, []string{"ls"}, work, Allow, ""},
		{"cwd outside root", Rules{Cwd: []string{work}}, []string{"ls"}, root, Refuse, RuleCwd},
		{"cwd dot-dot escape", Rules{Cwd: []string{work}}, []string{"ls"}, work + "/..", Refuse, RuleCwd},
		{"secure refuses shells", Rules{Secure: true}, []string{"bash", "-c", "ls"}, work, Refuse, RuleSecure},
		{"secure allows argv", Rules{Secure: true}, []string{"ls", "-l"}, work, Allow, ""},
		{"argv sh -c is parsed", Rules{Allow: []string{"sh", "ls"}}, []string{"sh", "-c", "ls; rm x"}, work, Refuse, RuleAllow},
		{"confirm", Rules{Confirm: []string{"git"}}, []string{"git", "push"}, work, Confirm, RuleConfirm},
		{"confirm pattern", Rules{ConfirmPatterns: []string{`git push`}}, []string{"git", "push"}, work, Confirm, RuleConfirmPatterns},
		{"deny beats confirm", Rules{Confirm: []string{"git"}, DenyPatterns: []string{"--force"}}, []string{"git", "push", "--force"}, work, Refuse, RuleDenyPatterns},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, Options{Rules: tc.rules})
			d := p.CheckArgv(tc.argv, tc.cwd)
			if d.Verdict != tc.verdict || d.Rule != tc.rule {
				t.Fatalf("CheckArgv(%q) = %s; want %s by %q", tc.argv, d, tc.verdict, tc.rule)
			}
		})
	}
}

func TestCheckScript_DenyPatternSeesUnquotedCommand(t *testing.T) {
	p := mustNew(t, Options{Rules: Rules{DenyPatterns: []string{`rm\s+-rf`}}})
	for _, cmd := range []string{"rm -rf x", "r''m -rf x", `"rm" "-rf" x`, "echo $(rm -rf x)", "sh -c 'r\"m\" -rf x'"} {
		if d := p.CheckScript(cmd, ""); d.Rule != RuleDenyPatterns {
			t.Errorf("CheckScript(%q) = %s; want deny_patterns", cmd, d)
		}
	}
	if d := p.CheckScript("rm -r x", ""); !d.Allowed() {
		t.Errorf("rm -r: %s", d)
	}
}

func TestPolicy_ProtectsConfigDirWhenOff(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".config", "agentty")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	p := mustNew(t, Options{Protected: []string{cfg}, Home: home})
	if p.Enabled() {
		t.Fatal("no rules: policy should be off")
	}
	for _, cmd := range []string{
		"echo x > ~/.config/agentty/config.toml",
		"cp /tmp/x $HOME/.config/agentty/config.toml",
		"sed -i s/a/b/ " + cfg + "/config.toml",
		"tee --output=" + cfg + "/config.toml",
		"cd " + home + "/.config && cd agentty && cat config.toml",
	} {
		if d := p.CheckScript(cmd, home); d.Rule != RuleProtected {
			t.Errorf("CheckScript(%q) = %s; want protected", cmd, d)
		}
	}
	if d := p.CheckCwd("~/.config/agentty"); d.Rule != RuleProtected {
		t.Errorf("CheckCwd(~/.config/agentty) = %s", d)
	}
	if d := p.CheckArgv([]string{"cat", "config.toml"}, "~/.config/agentty"); d.Rule != RuleProtected {
		t.Errorf("CheckArgv in ~/.config/agentty = %s", d)
	}
	if d := p.CheckCwd(cfg); d.Rule != RuleProtected {
		t.Errorf("CheckCwd(config dir) = %s", d)
	}
	link := filepath.Join(home, "innocent")
	if err := os.Symlink(cfg, link); err != nil {
		t.Fatal(err)
	}
	if d := p.CheckCwd(link); d.Rule != RuleProtected {
		t.Errorf("CheckCwd(symlink to config dir) = %s", d)
	}
	if d := p.CheckPath("innocent/config.toml", home); d.Rule != RuleProtected {
		t.Errorf("CheckPath(through symlink) = %s", d)
	}
	if d := p.CheckScript("rm -rf /tmp/x; $(whatever)", home); !d.Allowed() {
		t.Errorf("policy off refused an unrelated command: %s", d)
	}
}

func TestCheckEnv(t *testing.T) {
	p := mustNew(t, Options{Rules: Rules{Allow: []string{"ls"}}})
	if d := p.CheckEnv(map[string]string{"FOO": "1", "LD_PRELOAD": "/tmp/x.so"}); d.Rule != RuleEnv {
		t.Fatalf("LD_PRELOAD: %s", d)
	}
	if d := p.CheckEnv(map[string]string{"FOO": "1"}); !d.Allowed() {
		t.Fatalf("FOO: %s", d)
	}
	off := mustNew(t, Options{})
	if d := off.CheckEnv(map[string]string{"PATH": "/x"}); !d.Allowed() {
		t.Fatalf("policy off: %s", d)
	}
}

func TestNew_Errors(t *testing.T) {
	if _, err := New(Options{Rules: Rules{DenyPatterns: []string{"("}}}); err == nil {
		t.Fatal("bad regexp accepted")
	}
	if _, err := New(Options{Rules: Rules{Cwd: []string{"relative"}}}); err == nil {
		t.Fatal("relative cwd root accepted")
	}
	var p *Policy
	if d := p.CheckScript("rm -rf /", ""); !d.Allowed() || p.Enabled() {
		t.Fatal("nil policy must allow")
	}
	d := refuse(RuleAllow, "rm", "no")
	if !errors.Is(d.Err(), ErrRefused) {
		t.Fatal("refusal does not wrap ErrRefused")
	}
}

func TestCheckScript_ShellReadingStdin(t *testing.T) {
	p := mustNew(t, Options{Rules: Rules{Allow: []string{"bash", "ls", "echo"}}})
	cases := []struct {
		cmd     string
		verdict Verdict
		rule    string
	}{
		{"bash <<< 'ls -l'", Allow, ""},
		{"bash <<< 'ls; rm x'", Refuse, RuleAllow},
		{"bash <<EOF\nls\nrm x\nEOF", Refuse, RuleAllow},
		{"bash -s <<'EOF'\nls\nEOF", Allow, ""},
		{"ls | bash", Refuse, RuleUndecidable},
		{"bash script.sh", Allow, ""}, // running a file is what allowing bash means
	}
	for _, tc := range cases {
		if d := p.CheckScript(tc.cmd, ""); d.Verdict != tc.verdict || d.Rule != tc.rule {
			t.Errorf("CheckScript(%q) = %s; want %s by %q", tc.cmd, d, tc.verdict, tc.rule)
		}
	}
}
