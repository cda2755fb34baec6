package gate

import (
	"errors"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// Session process trees as the walk sees them: bash at its prompt, python3
// run from bash (its own foreground group), and sh -c 'bash; true' over
// pipes (one process group, one stdin).
var (
	bashArgs   = []string{"bash", "--norc", "--noprofile"}
	atBash     = session.Foreground{PGID: 10, Comm: "bash", Cwd: "/home/u", Procs: []session.ProcArgs{{PID: 10, PGID: 10, Args: bashArgs}}}
	pyUnder    = session.Foreground{PGID: 11, Comm: "python3", Cwd: "/home/u", Procs: []session.ProcArgs{{PID: 10, PGID: 10, Args: bashArgs}, {PID: 11, PGID: 11, Args: []string{"python3", "-q"}}}}
	catAlone   = session.Foreground{PGID: 12, Comm: "cat", Cwd: "/", Procs: []session.ProcArgs{{PID: 12, PGID: 12, Args: []string{"cat"}}}}
	nestedPipe = session.Foreground{PGID: 13, Comm: "sh", Cwd: "/tmp", Procs: []session.ProcArgs{{PID: 13, PGID: 13, Args: []string{"sh", "-c", "bash; true"}}, {PID: 14, PGID: 13, Args: bashArgs}}}
	bashBelow  = session.Foreground{PGID: 15, Comm: "sh", Cwd: "/tmp", Procs: []session.ProcArgs{{PID: 15, PGID: 15, Args: []string{"sh", "-c", "bash; true"}}, {PID: 16, PGID: 16, Args: bashArgs}}}
)

// TestJudgeInput: which typed input is a command line to check, which is
// refused because it cannot be checked, and which goes to a program that
// reads it.
func TestJudgeInput(t *testing.T) {
	const (
		running  = "running"
		reading  = "awaiting_input"
		password = "awaiting_password"
	)
	type want struct {
		check   bool
		script  string
		refusal string // the refusal's reason; "" for none
		command string // the refused input as audited
		cwd     string
	}
	pass := want{}
	checks := func(script, cwd string) want { return want{check: true, script: script, cwd: cwd} }
	cases := []struct {
		name string
		v    inputView
		in   Input
		off  bool // only protected directories: no command policy
		want want
	}{
		{"at the prompt", inputView{state: reading, fg: atBash}, Input{Text: "ls -l", Enter: true}, false, checks("ls -l", "/home/u")},
		{"newline ends the line", inputView{state: reading, fg: atBash}, Input{Text: "ls\r\n"}, false, checks("ls", "/home/u")},
		{"enter key", inputView{state: reading, fg: atBash}, Input{Text: "ls", Keys: []string{"enter"}}, false, checks("ls", "/home/u")},
		{"several lines", inputView{state: reading, fg: atBash}, Input{Text: "ls\nrm x\n"}, false, checks("ls\nrm x", "/home/u")},
		{"ctrl+c at the prompt", inputView{state: reading, fg: atBash}, Input{Keys: []string{"ctrl+c"}}, false, pass},
		{"partial line", inputView{state: reading, fg: atBash}, Input{Text: "rm -rf x #"}, false,
			want{refusal: "a partial command line at a shell prompt cannot be checked (later input would complete it unseen); send the whole command with enter=true", command: "rm -rf x #", cwd: "/home/u"}},
		{"line left open after a newline", inputView{state: reading, fg: atBash}, Input{Text: "ls\nls"}, false,
			want{refusal: "a partial command line at a shell prompt cannot be checked (later input would complete it unseen); send the whole command with enter=true", command: "ls\nls", cwd: "/home/u"}},
		{"history key", inputView{state: reading, fg: atBash}, Input{Keys: []string{"up"}, Enter: true}, false,
			want{refusal: `key "up" at a shell prompt can recall, complete or edit the command line past the checker; type the whole command as text with enter=true`, cwd: "/home/u"}},
		{"control characters", inputView{state: reading, fg: atBash}, Input{Text: "\x12rm", Enter: true}, false,
			want{refusal: "control characters at a shell prompt can recall or edit history past the checker; send plain text", command: "\x12rm", cwd: "/home/u"}},
		{"the shell's read -s", inputView{state: password, fg: atBash}, Input{Text: "hunter1", Enter: true}, false,
			want{refusal: "the shell itself reads with echo off (read -s or stty -echo), so agentty cannot tell a secret from a command line; text is refused here while a command policy is on (ctrl+c still works); run the program that asks for a secret as its own session", cwd: "/home/u"}},
		{"the shell's read -s, ctrl+c", inputView{state: password, fg: atBash}, Input{Keys: []string{"ctrl+c"}}, false, pass},
		{"the shell's read -s, policy off", inputView{state: password, fg: atBash}, Input{Text: "hunter1", Enter: true}, true, pass},
		{"policy off still checks paths", inputView{state: reading, fg: atBash}, Input{Text: "cat ~/.config/agentty/x", Enter: true}, true, checks("cat ~/.config/agentty/x", "/home/u")},
		{"policy off, editing keys", inputView{state: reading, fg: atBash}, Input{Text: "ls", Keys: []string{"up", "enter"}}, true, checks("ls", "/home/u")},
		{"python3 reads its own line", inputView{state: reading, fg: pyUnder}, Input{Text: "import os", Enter: true}, false, pass},
		{"python3 asks for a password", inputView{state: password, fg: pyUnder}, Input{Text: "hunter2", Enter: true}, false, pass},
		{"python3 busy: typed ahead for bash", inputView{state: running, fg: pyUnder}, Input{Text: "rm x", Enter: true}, false, checks("rm x", "/home/u")},
		{"python3 reads one line, the rest reach bash", inputView{state: reading, fg: pyUnder}, Input{Text: "1\nrm x\n"}, false,
			want{refusal: "python3 reads this input, but lines it does not read would reach the shell unchecked; send one line per call", command: "1\nrm x\n", cwd: "/home/u"}},
		{"no shell in the session", inputView{state: running, fg: catAlone}, Input{Text: "rm -rf /\n\n"}, false, pass},
		{"pipes: a shell below the root reads", inputView{state: reading, fg: nestedPipe, pipe: true}, Input{Text: "rm x", Enter: true}, false, checks("rm x", "/tmp")},
		{"pipes: a shell in its own group shares stdin", inputView{state: reading, fg: bashBelow, pipe: true}, Input{Text: "rm x", Enter: true}, false, checks("rm x", "/tmp")},
		{"pty: a shell in its own group, root not reading", inputView{state: running, fg: bashBelow}, Input{Text: "rm x", Enter: true}, false, checks("rm x", "/tmp")},
		{"pty: the root reads", inputView{state: reading, fg: bashBelow}, Input{Text: "y", Enter: true}, false, pass},
		{"remote", inputView{state: reading, remote: true}, Input{Text: "rm x", Enter: true}, false, checks("rm x", "")},
		{"remote, several lines", inputView{state: running, remote: true}, Input{Text: "ls\nls\n"}, false, checks("ls\nls", "")},
		{"remote password prompt", inputView{state: password, remote: true}, Input{Text: "hunter3", Enter: true}, false, pass},
		{"remote, policy off", inputView{state: reading, remote: true}, Input{Text: "rm x", Enter: true}, true, pass},
		{"tree unreadable", inputView{state: running, fgErr: errors.New("no such process")}, Input{Text: "ls", Enter: true}, false,
			want{refusal: "cannot tell whether a shell would read this input (no such process), so it is refused while a command policy is on"}},
		{"tree unreadable, exited", inputView{state: "exited", fgErr: errors.New("gone"), exited: true}, Input{Text: "ls", Enter: true}, false, pass},
		{"tree unreadable, policy off", inputView{state: running, fgErr: errors.New("gone")}, Input{Text: "ls", Enter: true}, true, pass},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := judgeInput(tc.v, tc.in, !tc.off)
			got := want{check: j.check, script: j.script, command: j.command, cwd: j.cwd}
			if j.refuse != nil {
				if j.refuse.Rule != "undecidable" {
					t.Fatalf("refused by rule %q", j.refuse.Rule)
				}
				got.refusal = j.refuse.Reason
			}
			if got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
