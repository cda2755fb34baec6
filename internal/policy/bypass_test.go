package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bypassPolicy is the allowlist the bypass table runs against.
func bypassPolicy(t *testing.T) (*Policy, string) {
	t.Helper()
	cfgDir := filepath.Join(t.TempDir(), "agentty")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	p, err := New(Options{Rules: Rules{Allow: []string{"git", "ls", "python3"}},
		Protected: []string{cfgDir}, PathEnv: "/usr/local/bin:/usr/bin:/bin", Home: "/home/agent"})
	if err != nil {
		t.Fatal(err)
	}
	return p, cfgDir
}

// TestCheckScript_Bypasses runs known ways around text blocklists against an
// allowlist of git, ls and python3: each is allowed or refused by a named
// rule.
func TestCheckScript_Bypasses(t *testing.T) {
	p, cfgDir := bypassPolicy(t)
	long := "ls" + strings.Repeat(" a", 20000)
	cases := []struct {
		name, cmd string
		verdict   Verdict
		rule      string
	}{
		{"plain allowed", "ls -la", Allow, ""},
		{"plain refused", "rm -rf x", Refuse, RuleAllow},
		{"single quotes", "'r''m' x", Refuse, RuleAllow},
		{"double quotes", `"rm" x`, Refuse, RuleAllow},
		{"backslash", `r\m x`, Refuse, RuleAllow},
		{"ansi-c quoting", `$'\x72\x6d' x`, Refuse, RuleAllow},
		{"quoted allowed name", `'l's -la`, Allow, ""},
		{"command substitution arg", "ls $(rm -rf x)", Refuse, RuleAllow},
		{"command substitution name", "$(echo rm) x", Refuse, RuleUndecidable},
		{"backticks", "ls `rm -rf x`", Refuse, RuleAllow},
		{"nested substitution", "ls $(ls $(rm x))", Refuse, RuleAllow},
		{"semicolon chain", "ls; rm x", Refuse, RuleAllow},
		{"and chain", "ls && rm x", Refuse, RuleAllow},
		{"or chain", "ls || rm x", Refuse, RuleAllow},
		{"pipeline", "ls | rm x", Refuse, RuleAllow},
		{"allowed pipeline", "ls | python3 -c 'import sys; print(len(sys.stdin.read()))'", Allow, ""},
		{"background", "ls & rm x", Refuse, RuleAllow},
		{"newline", "ls\nrm x", Refuse, RuleAllow},
		{"subshell", "(rm x)", Refuse, RuleAllow},
		{"brace group", "{ rm x; }", Refuse, RuleAllow},
		{"process substitution", "ls <(rm x)", Refuse, RuleAllow},
		{"env wrapper", "env rm x", Refuse, RuleAllow},
		{"env wrapper allowed inner", "env ls", Refuse, RuleAllow},
		{"env PATH", "env PATH=/tmp/evil ls", Refuse, RuleEnv},
		{"PATH prefix assignment", "PATH=/tmp/evil ls", Refuse, RuleEnv},
		{"export PATH", "export PATH=/tmp/evil; ls", Refuse, RuleEnv},
		{"LD_PRELOAD", "LD_PRELOAD=/tmp/x.so ls", Refuse, RuleEnv},
		{"git pager", "GIT_PAGER='rm x' git log", Refuse, RuleEnv},
		{"sudo", "sudo rm x", Refuse, RuleAllow},
		{"absolute path", "/bin/rm x", Refuse, RuleAllow},
		{"dot-dot path", "../../bin/rm x", Refuse, RuleAllow},
		{"absolute allowed", "/usr/bin/python3 -V", Allow, ""},
		{"copy in cwd", "./ls", Refuse, RuleAllow},
		{"tmp copy", "/tmp/ls", Refuse, RuleAllow},
		{"sh -c", "sh -c 'rm x'", Refuse, RuleAllow},
		{"bash -c", `bash -c "ls; rm x"`, Refuse, RuleAllow},
		{"bash -lc combined flags", "bash -lc 'rm x'", Refuse, RuleAllow},
		{"xargs", "ls | xargs rm", Refuse, RuleAllow},
		{"xargs sh -c from stdin", "ls | xargs sh -c", Refuse, RuleUndecidable},
		{"find -exec", `find . -exec rm {} \;`, Refuse, RuleAllow},
		{"find -execdir +", "find . -name x -execdir rm {} +", Refuse, RuleAllow},
		{"python -c allowed", `python3 -c 'import os; os.system("rm x")'`, Allow, ""},
		{"here-string", "python3 <<< 'import os'", Allow, ""},
		{"here-doc substitution", "python3 <<EOF\n$(rm x)\nEOF", Refuse, RuleAllow},
		{"function body", "f() { rm x; }; f", Refuse, RuleAllow},
		{"function allowed", "f() { ls -l; }; f", Allow, ""},
		{"function shadows allowed name", "ls() { rm -rf x; }", Refuse, RuleAllow},
		{"alias", "alias ls='rm -rf x'", Refuse, RuleUndecidable},
		{"eval", "eval 'rm x'", Refuse, RuleUndecidable},
		{"eval of allowed", "eval ls", Refuse, RuleUndecidable},
		{"source", "source ./x.sh", Refuse, RuleUndecidable},
		{"variable command", `c=rm; $c x`, Refuse, RuleUndecidable},
		{"glob command", "/bin/r? x", Refuse, RuleUndecidable},
		{"brace command", "{rm,x}", Refuse, RuleUndecidable},
		{"arithmetic injection", `x='a[$(rm y)]'; echo $((x))`, Refuse, RuleEmbeddedCode},
		{"arithmetic on variable", `echo $((y+1))`, Refuse, RuleUndecidable},
		{"arithmetic literal", `echo $((1+2))`, Allow, ""},
		{"[[ -eq ]] on variable", `[[ $y -eq 1 ]]`, Refuse, RuleUndecidable},
		{"declare computed", `declare "$v"`, Refuse, RuleUndecidable},
		{"trap", "trap 'rm x' EXIT", Refuse, RuleAllow},
		{"exec", "exec rm x", Refuse, RuleAllow},
		{"command builtin", "command rm x", Refuse, RuleAllow},
		{"command -v", "command -v rm", Allow, ""},
		{"busybox", "busybox rm x", Refuse, RuleAllow},
		{"timeout", "timeout 5 rm x", Refuse, RuleAllow},
		{"nice nohup", "nice -n 5 nohup rm x", Refuse, RuleAllow},
		{"watch", "watch -n 1 'rm x'", Refuse, RuleAllow},
		{"cyrillic look-alike", "ls\u0430", Refuse, RuleAllow},
		{"fullwidth look-alike", "\uff4c\uff53", Refuse, RuleAllow},
		{"zero-width joiner", "l\u200ds", Refuse, RuleAllow},
		{"very long allowed", long, Allow, ""},
		{"very long with tail", long + "; rm x", Refuse, RuleAllow},
		{"too long", "ls " + strings.Repeat("a", DefaultMaxScriptBytes), Refuse, RuleLength},
		{"deep nesting", strings.Repeat("sh -c '", 1) + "sh -c \"sh -c ls\"'", Refuse, RuleAllow},
		{"write to config", "ls > " + cfgDir + "/config.toml", Refuse, RuleProtected},
		{"config via tilde spelling", "ls " + cfgDir + "/../agentty/x", Refuse, RuleProtected},
		{"computed redirect", `ls > "$f"`, Refuse, RuleUndecidable},
		{"syntax error", "ls (", Refuse, RuleSyntax},
		{"builtins need no entry", "cd /tmp && echo hi && pwd", Allow, ""},
		{"git allowed", "git status --short", Allow, ""},
		{"pipe into a shell", "echo 'rm -rf x' | bash", Refuse, RuleUndecidable},
		{"here-string into a shell", "bash <<< 'rm -rf x'", Refuse, RuleAllow},
		{"here-doc into a shell", "sh <<'EOF'\nrm -rf x\nEOF", Refuse, RuleAllow},
		{"process substitution as script", "bash <(echo rm x)", Refuse, RuleUndecidable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := p.CheckScript(tc.cmd, "/tmp")
			if d.Verdict != tc.verdict || d.Rule != tc.rule {
				t.Fatalf("CheckScript(%q) = %s; want %s by rule %q", clip(tc.cmd), d, tc.verdict, tc.rule)
			}
			if d.Verdict == Refuse && (d.Reason == "" || d.Err() == nil || !strings.Contains(d.Err().Error(), "rule "+tc.rule)) {
				t.Fatalf("refusal without an explanation: %v", d.Err())
			}
		})
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
}
