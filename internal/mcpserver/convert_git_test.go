package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/agentty/agentty/internal/gitparse"
)

// TestWireGit_Signatures parses each supported command signature and checks
// the JSON agents get for it.
func TestWireGit_Signatures(t *testing.T) {
	cases := []struct {
		name string
		argv []string
		out  string
		want string // JSON of Data; "" = not parsed
	}{
		{"rename, conflict, detached", []string{"git", "status", "--porcelain", "-b"},
			"## HEAD (no branch)\nR  old.go -> new.go\nUU both.go\nMM \"sp ace\\303\\251.txt\"\n",
			`{"branch":{"head":"HEAD","ahead":0,"behind":0,"detached":true},"staged":[{"path":"new.go","orig_path":"old.go","code":"R ","status":"renamed"},{"path":"sp aceé.txt","code":"MM","status":"modified"}],"modified":[{"path":"sp aceé.txt","code":"MM","status":"modified"}],"untracked":[],"conflicted":[{"path":"both.go","code":"UU","status":"unmerged"}],"clean":false}`},
		{"gone upstream, behind", []string{"git", "status", "-sb"}, "## dev...origin/dev [gone]\n",
			`{"branch":{"head":"dev","upstream":"origin/dev","ahead":0,"behind":0,"gone":true},"staged":[],"modified":[],"untracked":[],"conflicted":[],"clean":true}`},
		{"ahead and behind", []string{"git", "-C", "x", "status", "--short", "--branch"}, "## m...o/m [ahead 2, behind 3]\n",
			`{"branch":{"head":"m","upstream":"o/m","ahead":2,"behind":3},"staged":[],"modified":[],"untracked":[],"conflicted":[],"clean":true}`},
		{"long status is not parsed", []string{"git", "status"}, "On branch main\n", ""},
		{"log -3 with decorations", []string{"git", "log", "--oneline", "-3"}, "abc1234 (HEAD -> main, tag: v1) Fix it\ndef5678 Start\n",
			`[{"hash":"abc1234","refs":"HEAD -> main, tag: v1","subject":"Fix it"},{"hash":"def5678","subject":"Start"}]`},
		{"log with other flags", []string{"git", "log", "--oneline", "--graph"}, "* abc1234 x\n", ""},
		{"branch -vv gone", []string{"git", "branch", "-vv"}, "* main 1a2b3c4 [origin/main: ahead 1] msg one\n  old  5d6e7f8 [origin/old: gone] msg two\n  loc  9a9a9a9 msg three\n",
			`[{"name":"main","current":true,"hash":"1a2b3c4","upstream":"origin/main","ahead":1,"subject":"msg one"},{"name":"old","current":false,"hash":"5d6e7f8","upstream":"origin/old","gone":true,"subject":"msg two"},{"name":"loc","current":false,"hash":"9a9a9a9","subject":"msg three"}]`},
		{"branch --show-current", []string{"git", "branch", "--show-current"}, "main\n", `{"current":"main"}`},
		{"remote branches with HEAD", []string{"git", "branch", "-r"}, "  origin/HEAD -> origin/main\n  origin/main\n",
			`[{"name":"origin/HEAD","current":false,"remote":true,"target":"origin/main"},{"name":"origin/main","current":false,"remote":true}]`},
		{"name-status rename", []string{"git", "diff", "--name-status", "-M"}, "R087\ta.go\tb.go\nD\tc.go\n",
			`[{"status":"R","score":87,"path":"b.go","orig_path":"a.go"},{"status":"D","path":"c.go"}]`},
		{"stat with binary", []string{"git", "diff", "--stat"}, " a.go   | 5 +++--\n img.png | Bin 0 -> 12 bytes\n 2 files changed, 3 insertions(+), 2 deletions(-)\n",
			`{"files":[{"path":"a.go","changes":5},{"path":"img.png","changes":0,"binary":true}],"files_changed":2,"insertions":3,"deletions":2}`},
		{"shortstat deletions only", []string{"git", "diff", "--shortstat"}, " 1 file changed, 4 deletions(-)\n", `{"files_changed":1,"insertions":0,"deletions":4}`},
		{"diff with patch is not parsed", []string{"git", "diff"}, "diff --git a b\n", ""},
		{"rev-parse short", []string{"git", "rev-parse", "--short", "HEAD"}, "abc1234\n", `{"hash":"abc1234"}`},
		{"which missing", []string{"which", "nope"}, "", `{"paths":[],"found":false}`},
		{"not git", []string{"ls"}, "a\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := gitparse.Parse(tc.argv, tc.out)
			if tc.want == "" {
				if ok {
					t.Fatalf("parsed, want left alone: %+v", p)
				}
				return
			}
			if !ok {
				t.Fatalf("not parsed")
			}
			got, _ := json.Marshal(wireGitData(p.Data))
			var a, b any
			_ = json.Unmarshal(got, &a)
			if err := json.Unmarshal([]byte(tc.want), &b); err != nil {
				t.Fatal(err)
			}
			ga, _ := json.Marshal(a)
			gb, _ := json.Marshal(b)
			if string(ga) != string(gb) {
				t.Fatalf("\n got %s\nwant %s", ga, gb)
			}
		})
	}
}
