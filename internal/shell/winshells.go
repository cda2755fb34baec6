package shell

// The Windows shells: PowerShell (pwsh 7, or Windows PowerShell 5.1) and
// cmd.exe. They speak the same marks as bash and zsh (see doc.go), made
// their own ways, and take commands as files too. The text here is pure,
// so it is tested on every platform; only running it needs Windows.

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Windows shell kinds.
const (
	PowerShell Kind = "pwsh" // pwsh.exe, else powershell.exe
	Cmd        Kind = "cmd"  // cmd.exe
)

// pwshRC defines the prompt that prints the marks. Its first statement
// reads $? before anything changes it; a command agentty ran records its
// own status at its end (pwshCommand), which is used instead when there.
// The status is 0 on success, else the native program's exit code when
// one failed, else 1 (a cmdlet's error); __agentty_begin clears
// $LASTEXITCODE so an earlier program's code is not taken for this one's.
// [char]27 rather than `e: Windows PowerShell 5.1 has no `e. The cwd is
// the FileSystem location (a prompt in HKLM: still has one), percent-
// encoded for a file:// URL.
const pwshRC = `$global:__agentty_nonce = '@NONCE@'
$global:__agentty_id = 0
$global:__agentty_rec = $null
if (-not $env:AGENTTY_NO_RC) {
	foreach ($__agentty_p in @($PROFILE.AllUsersAllHosts, $PROFILE.AllUsersCurrentHost, $PROFILE.CurrentUserAllHosts, $PROFILE.CurrentUserCurrentHost)) {
		if ($__agentty_p -and (Test-Path -LiteralPath $__agentty_p)) { . $__agentty_p }
	}
}
Remove-Item Env:AGENTTY_NO_RC -ErrorAction SilentlyContinue
function global:__agentty_begin([int]$id) {
	$global:__agentty_id = $id
	$global:__agentty_rec = $null
	$global:LASTEXITCODE = 0
	[Console]::Out.Write([string][char]27 + "]133;C;aid=$($global:__agentty_nonce).$id" + [char]7)
}
function global:prompt {
	$ok = $global:?
	$code = $global:LASTEXITCODE
	if ($global:__agentty_rec -is [array]) { $ok, $code = $global:__agentty_rec }
	$st = if ($ok) { 0 } elseif ($code -is [int] -and $code -ne 0) { $code } else { 1 }
	$id = $global:__agentty_id
	$global:__agentty_id = 0
	$global:__agentty_rec = $null
	$p = (Get-Location -PSProvider FileSystem).ProviderPath -replace '\\', '/'
	$p = [regex]::Replace($p, '[^A-Za-z0-9/._~:-]+', { param($m) [Uri]::EscapeDataString($m.Value) })
	if (-not $p.StartsWith('/')) { $p = '/' + $p }
	$e = [string][char]27; $b = [string][char]7; $n = $global:__agentty_nonce
	"$e]133;D;$st;aid=$n.$id$b$e]7;file://$env:COMPUTERNAME$p$b$e]133;A;aid=$n$b" + 'PS> ' + "$e]133;B;aid=$n$b"
}
`

// pwshArgv starts PowerShell on the integration script. Bypass: the
// default policy of Windows PowerShell refuses to run any script file,
// the integration's included; it applies to this process only.
func pwshArgv(path, rc string) []string {
	return []string{path, "-NoLogo", "-NoProfile", "-NoExit", "-ExecutionPolicy", "Bypass",
		"-Command", ". " + pwshQuote(rc)}
}

// pwshQuote makes s one single-quoted PowerShell string.
func pwshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// pwshCommand is the file that runs one command: the command, then its
// status, taken before anything else runs. A command that ends the script
// early (a terminating error, exit) records nothing; the prompt's own $?
// then tells.
func pwshCommand(command string) string {
	if !strings.HasSuffix(command, "\n") {
		command += "\n"
	}
	return command + "$global:__agentty_rec = @($?, $global:LASTEXITCODE)\n"
}

// pwshLine is what is typed to run command id from file f. The C mark is
// printed on the typed line, not in the file: PowerShell parses a whole
// script before it runs any of it, and a command that does not parse
// then still has its C mark, so the parser's message is its output.
func pwshLine(id int, f string) string {
	return "__agentty_begin " + strconv.Itoa(id) + "; . " + pwshQuote(f)
}

// cmd.exe has no prompt hook that could print a status, so each command
// is run by a wrapper file: its C mark, a call of the command's own file
// (whose exit /b or last program sets ERRORLEVEL, cleared first by
// "(call )": many builtins leave it as they found it), then the D mark. A
// line is expanded before it runs, so %ERRORLEVEL% on the last line is the
// command's status, which exit /b hands on to the shell; the cwd comes
// from a for variable (%%~fd), expanded as the line runs, so a cwd with &
// or ) in it is not parsed as syntax. cmd reads a batch file line by line
// as it runs it, so the D mark and exit /b share the last line: once the
// mark is out, cmd reads nothing more of the file, and agentty may remove
// it. The ESC and BEL bytes are written into the files as they are.
const cmdWrapper = "@<nul set /p \"=\x1b]133;C;aid=@NONCE@.@ID@\x07\"\r\n" +
	"@(call ) & call @FILE@\r\n" +
	"@(for %%d in (.) do @echo \x1b]133;D;%ERRORLEVEL%;aid=@NONCE@.@ID@\x07\x1b]7;file://%COMPUTERNAME%/%%~fd\x07) & exit /b %ERRORLEVEL%\r\n"

// cmdInit is run by cmd /K at startup: the first D mark, which tells
// agentty the shell is ready (and, as in the wrapper, that the file is
// done with, so its directory may go).
const cmdInit = "@(for %%d in (.) do @echo \x1b]133;D;0;aid=@NONCE@.0\x07\x1b]7;file://%COMPUTERNAME%/%%~fd\x07) & exit /b 0\r\n"

// cmdArgv starts cmd.exe on the init file: /Q no command echo, /D no
// AutoRun commands from the registry when the user's rc is skipped. The
// path is not quoted here: the command line is composed by the C runtime's
// rules, which quote it when it has a space, and cmd.exe takes a /K
// command that is one quoted file name as that file.
func cmdArgv(path, init string, noRC bool) []string {
	argv := []string{path, "/Q"}
	if noRC {
		argv = append(argv, "/D")
	}
	return append(argv, "/K", init)
}

// cmdQuote double-quotes a path for cmd.exe; Windows file names cannot
// contain a double quote.
func cmdQuote(p string) string { return `"` + p + `"` }

// cmdCommand returns the wrapper that runs command file f as command id.
func cmdCommand(nonce string, id int, f string) string {
	return strings.NewReplacer("@NONCE@", nonce, "@ID@", strconv.Itoa(id), "@FILE@", cmdQuote(f)).Replace(cmdWrapper)
}

// cmdBody is the command's own file: echo off, as typed commands are not
// echoed either (/Q), then the text with CRLF line ends.
func cmdBody(command string) string {
	command = strings.ReplaceAll(strings.ReplaceAll(command, "\r\n", "\n"), "\n", "\r\n")
	if !strings.HasSuffix(command, "\r\n") {
		command += "\r\n"
	}
	return "@echo off\r\n" + command
}

// windowsCommandName is a new command file's name in dir, with the
// extension the shell needs to run it (.ps1, .cmd).
func windowsCommandName(dir, ext string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return filepath.Join(dir, "agentty-cmd-"+hex.EncodeToString(b)+ext)
}

// driveCwd turns an OSC 7 path of a Windows shell into a Windows path:
// "/C:/Users/a b" is C:\Users\a b, "//server/share/x" is \\server\share\x
// (PowerShell), and cmd's "/C:\x" is C:\x. Other paths are left alone.
// cmd cannot percent-encode its cwd: a directory whose name holds "%20"
// is read back as a space.
func driveCwd(p string) string {
	switch {
	case drivePath.MatchString(p):
		return strings.ReplaceAll(p[1:], "/", `\`)
	case strings.HasPrefix(p, "//") && len(p) > 2 && p[2] != '/':
		return strings.ReplaceAll(p, "/", `\`)
	}
	return p
}

var drivePath = regexp.MustCompile(`^/[A-Za-z]:([/\\]|$)`)
