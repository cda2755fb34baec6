package policy

import (
	"strings"
	"testing"
)

// BenchmarkCheckScript measures a policy decision on typical command lines:
// the cost added to every start_process and every line typed at a shell.
func BenchmarkCheckScript(b *testing.B) {
	p, err := New(Options{Rules: Rules{Allow: []string{"git", "ls", "python3", "grep", "sh"}, DenyPatterns: []string{`rm\s+-rf`}},
		Protected: []string{"/home/agent/.config/agentty"}, PathEnv: "/usr/local/bin:/usr/bin:/bin", Home: "/home/agent"})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, cmd string }{
		{"simple", "git status --short"},
		{"pipeline", `git log --oneline | grep -v "^Merge" | sh -c 'ls $(python3 -c "print(1)")'`},
		{"long-10k-words", "ls" + strings.Repeat(" file", 10000)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.cmd)))
			for b.Loop() {
				if d := p.CheckScript(bc.cmd, "/tmp"); d.Verdict != Allow {
					b.Fatal(d)
				}
			}
		})
	}
}

// BenchmarkNew measures compiling the policy agentty serve starts with
// (no rules, the config directory protected): a part of every cold start.
func BenchmarkNew(b *testing.B) {
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/go/bin:/root/go/bin"
	for b.Loop() {
		if _, err := New(Options{Protected: []string{"/root/.config/agentty"}, PathEnv: path, Home: "/root"}); err != nil {
			b.Fatal(err)
		}
	}
}
