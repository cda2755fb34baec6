package shell

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestKindOf_WindowsNames(t *testing.T) {
	for _, c := range []struct {
		name string
		want Kind
		ok   bool
	}{
		{"pwsh", PowerShell, true},
		{"pwsh.exe", PowerShell, true},
		{`C:\Program Files\PowerShell\7\pwsh.exe`, PowerShell, true},
		{`C:\Windows\System32\WindowsPowerShell\v1.0\POWERSHELL.EXE`, PowerShell, true},
		{"powershell", PowerShell, true},
		{"cmd", Cmd, true},
		{`C:\Windows\system32\cmd.exe`, Cmd, true},
		{"C:/Windows/system32/Cmd.Exe", Cmd, true},
		{`C:\Program Files\Git\bin\bash.exe`, Bash, true},
		{"/usr/bin/zsh", Zsh, true},
		{"/bin/dash", Sh, true},
		{"fish", "", false},
		{"cmd.com", "", false},
		{"Bash", "", false}, // case matters where names do
	} {
		t.Run(c.name, func(t *testing.T) {
			k, ok := kindOf(c.name)
			if k != c.want || ok != c.ok {
				t.Fatalf("kindOf(%q) = %q, %v; want %q, %v", c.name, k, ok, c.want, c.ok)
			}
		})
	}
}

func TestAutoShells_PerPlatform(t *testing.T) {
	if got := autoShells("windows"); !slices.Equal(got, []string{"pwsh", "powershell", "cmd"}) {
		t.Fatalf("windows: %q", got)
	}
	if got := autoShells("linux"); !slices.Equal(got, []string{"bash", "sh"}) {
		t.Fatalf("linux: %q", got)
	}
}

func TestDriveCwd_Paths(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/C:/Users/a b", `C:\Users\a b`},
		{"/c:/", `c:\`},
		{"/D:", `D:`},
		{`/C:\Users\x`, `C:\Users\x`}, // cmd.exe's %%~fd
		{"//server/share/dir", `\\server\share\dir`},
		{"/tmp/C:/x", "/tmp/C:/x"},
		{"/CD:/x", "/CD:/x"},
		{"///x", "///x"},
		{"/home/a", "/home/a"},
	} {
		if got := driveCwd(c.in); got != c.want {
			t.Errorf("driveCwd(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestFindMarks_WindowsShells: the marks as pwsh's prompt and cmd.exe's
// wrapper print them, negative statuses and drive letters included.
func TestFindMarks_WindowsShells(t *testing.T) {
	re := markRE("n0nce")
	for _, c := range []struct {
		name, stream string
		status       int
		cwd          string
	}{
		{"pwsh ctrl+c", "\x1b]133;D;-1073741510;aid=n0nce.3\x07\x1b]7;file://HOST/C:/Users/a%20b\x07\x1b]133;A;aid=n0nce\x07PS> ", -1073741510, `C:\Users\a b`},
		{"pwsh UNC", "\x1b]133;D;1;aid=n0nce.3\x07\x1b]7;file://HOST//srv/share\x07", 1, `\\srv\share`},
		{"cmd", "\x1b]133;D;9009;aid=n0nce.3\x07\x1b]7;file://HOST/C:\\Program Files (x86)\\a&b\x07\r\n", 9009, `C:\Program Files (x86)\a&b`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms, _ := findMarks(re, []byte(c.stream), 0, true)
			if len(ms) != 1 || ms[0].kind != markD || ms[0].id != 3 || ms[0].status != c.status {
				t.Fatalf("marks %+v; want one D of command 3, status %d", ms, c.status)
			}
			if got := driveCwd(ms[0].cwd); got != c.cwd {
				t.Fatalf("cwd %q, want %q", got, c.cwd)
			}
		})
	}
}

func TestPwshCommand_Text(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"Get-ChildItem", "Get-ChildItem\n$global:__agentty_rec = @($?, $global:LASTEXITCODE)\n"},
		{"a\nb\n", "a\nb\n$global:__agentty_rec = @($?, $global:LASTEXITCODE)\n"},
	} {
		if got := pwshCommand(c.cmd); got != c.want {
			t.Errorf("pwshCommand(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
	if got, want := pwshLine(7, `C:\it's\x.ps1`), `__agentty_begin 7; . 'C:\it''s\x.ps1'`; got != want {
		t.Errorf("pwshLine = %s, want %s", got, want)
	}
}

func TestCmdCommand_Text(t *testing.T) {
	got := cmdCommand("n0nce", 12, `C:\T\agentty-cmd-1.cmd`)
	want := "@<nul set /p \"=\x1b]133;C;aid=n0nce.12\x07\"\r\n" +
		"@(call ) & call \"C:\\T\\agentty-cmd-1.cmd\"\r\n" +
		"@(for %%d in (.) do @echo \x1b]133;D;%ERRORLEVEL%;aid=n0nce.12\x07\x1b]7;file://%COMPUTERNAME%/%%~fd\x07) & exit /b %ERRORLEVEL%\r\n"
	if got != want {
		t.Fatalf("wrapper =\n%q\nwant\n%q", got, want)
	}
	for _, c := range []struct{ cmd, want string }{
		{"dir", "@echo off\r\ndir\r\n"},
		{"a\nb", "@echo off\r\na\r\nb\r\n"},
		{"a\r\nb\r\n", "@echo off\r\na\r\nb\r\n"},
	} {
		if got := cmdBody(c.cmd); got != c.want {
			t.Errorf("cmdBody(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}

func TestWriteRC_WindowsShells(t *testing.T) {
	noEnv := func(string) (string, bool) { return "", false }
	t.Run("pwsh", func(t *testing.T) {
		dir := t.TempDir()
		argv, env, err := writeRC(context.Background(), localFiles{}, PowerShell, "pwsh.exe", dir, "n0nce", true, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		rc := filepath.Join(dir, "rc.ps1")
		want := []string{"pwsh.exe", "-NoLogo", "-NoProfile", "-NoExit", "-ExecutionPolicy", "Bypass", "-Command", ". '" + rc + "'"}
		if !slices.Equal(argv, want) || env["AGENTTY_NO_RC"] != "1" {
			t.Fatalf("argv %q env %v; want %q and AGENTTY_NO_RC", argv, env, want)
		}
		b, err := os.ReadFile(rc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "$global:__agentty_nonce = 'n0nce'\n") || strings.Contains(string(b), "@NONCE@") {
			t.Fatalf("rc does not carry the nonce:\n%s", b)
		}
	})
	t.Run("cmd", func(t *testing.T) {
		for _, noRC := range []bool{false, true} {
			dir := t.TempDir()
			argv, env, err := writeRC(context.Background(), localFiles{}, Cmd, `C:\cmd.exe`, dir, "n0nce", noRC, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			init := filepath.Join(dir, "init.cmd")
			want := []string{`C:\cmd.exe`, "/Q", "/K", init}
			if noRC {
				want = []string{`C:\cmd.exe`, "/Q", "/D", "/K", init}
			}
			if !slices.Equal(argv, want) || len(env) != 0 {
				t.Fatalf("noRC %v: argv %q env %v; want %q and no variables", noRC, argv, env, want)
			}
			b, err := os.ReadFile(init)
			if err != nil {
				t.Fatal(err)
			}
			if want := "@(for %%d in (.) do @echo \x1b]133;D;0;aid=n0nce.0\x07\x1b]7;file://%COMPUTERNAME%/%%~fd\x07) & exit /b 0\r\n"; string(b) != want {
				t.Fatalf("init.cmd = %q, want %q", b, want)
			}
		}
	})
}
