package shell

import (
	"context"
	"path/filepath"
	"strings"
)

// The integration scripts. Placeholders: @NONCE@, @DIR@ (single-quoted
// shell word of the startup directory holding these files). Each prompt prints D (status of the
// last command + which agentty command it was), OSC 7 (cwd, percent-encoded)
// and A; PS1 ends with B. __agentty_begin is the first line of every
// command file and prints C.

// posixEncode sets __agentty_p to $PWD percent-encoded for a file:// URL;
// the loop only runs for unusual paths, so prompts stay cheap.
const posixEncode = `__agentty_enc() {
	case $PWD in
	*[!A-Za-z0-9/._~-]*)
		__agentty_r=$PWD; __agentty_p=
		while [ -n "$__agentty_r" ]; do
			__agentty_t=${__agentty_r#?}
			__agentty_c=${__agentty_r%"$__agentty_t"}
			__agentty_r=$__agentty_t
			case $__agentty_c in
			[A-Za-z0-9/._~-]) __agentty_p=$__agentty_p$__agentty_c ;;
			*) __agentty_p=$__agentty_p$(printf '%%%02X' "'$__agentty_c") ;;
			esac
		done ;;
	*) __agentty_p=$PWD ;;
	esac
}
`

const commonRC = `__agentty_nonce=@NONCE@
__agentty_id=0
__agentty_begin() { __agentty_id=$1; [ -z "${2-}" ] || command rm -f -- "$2"; printf '\033]133;C;aid=%s.%s\007' "$__agentty_nonce" "$1"; }
__agentty_marks() {
	__agentty_enc
	printf '\033]133;D;%s;aid=%s.%s\007\033]7;file://%s%s\007\033]133;A;aid=%s\007' "$1" "$__agentty_nonce" "$__agentty_id" "${HOSTNAME:-}" "$__agentty_p" "$__agentty_nonce"
}
PS2='> '
`

const bashRC = `[ -z "$AGENTTY_NO_RC" ] && [ -f ~/.bashrc ] && . ~/.bashrc
unset AGENTTY_NO_RC
` + posixEncode + commonRC + `__agentty_precmd() {
	local __agentty_s=$? LC_ALL=C
	__agentty_marks "$__agentty_s"
	__agentty_id=0
}
HISTCONTROL="ignorespace${HISTCONTROL:+:$HISTCONTROL}"
PROMPT_COMMAND="__agentty_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
PS1='\[\033]133;B;aid=@NONCE@\007\]$ '
`

// dash and other POSIX shells have no precmd hook: the marks come from a
// command substitution in PS1, which sees $? of the last command. It runs
// in a subshell, so __agentty_id cannot be reset there; a later prompt
// repeats the id of the last agentty command, which is harmless because
// every command gets a new id.
const shRC = `[ -z "$AGENTTY_NO_RC" ] && [ -n "$AGENTTY_USER_ENV" ] && [ -f "$AGENTTY_USER_ENV" ] && . "$AGENTTY_USER_ENV"
unset AGENTTY_NO_RC AGENTTY_USER_ENV ENV
` + posixEncode + commonRC + `__agentty_ps1() { __agentty_marks "$1"; printf '\033]133;B;aid=%s\007' "$__agentty_nonce"; }
PS1='$(__agentty_ps1 $?)$ '
`

// zsh reads $ZDOTDIR/.zshenv and .zshrc; agentty points ZDOTDIR at its own
// directory, then restores the user's and sources their files.
const zshEnv = `if [ -n "$AGENTTY_ZDOTDIR" ]; then ZDOTDIR=$AGENTTY_ZDOTDIR; else unset ZDOTDIR; fi
[ -z "$AGENTTY_NO_RC" ] && [ -f "${ZDOTDIR:-$HOME}/.zshenv" ] && . "${ZDOTDIR:-$HOME}/.zshenv"
__agentty_zd=${ZDOTDIR-}
ZDOTDIR=@DIR@
`

const zshRC = `if [ -n "$__agentty_zd" ]; then ZDOTDIR=$__agentty_zd; else unset ZDOTDIR; fi
unset __agentty_zd AGENTTY_ZDOTDIR
[ -z "$AGENTTY_NO_RC" ] && [ -f "${ZDOTDIR:-$HOME}/.zshrc" ] && . "${ZDOTDIR:-$HOME}/.zshrc"
unset AGENTTY_NO_RC
` + posixEncode + commonRC + `__agentty_precmd() {
	local __agentty_s=$? LC_ALL=C
	setopt localoptions no_multibyte
	__agentty_marks "$__agentty_s"
	__agentty_id=0
}
precmd_functions=(__agentty_precmd ${precmd_functions[@]:-})
setopt no_prompt_subst no_prompt_sp hist_ignore_space
PROMPT_EOL_MARK=''
RPROMPT=''
PS1=$'%{\033]133;B;aid=@NONCE@\007%}$ '
`

// quote makes s one single-quoted shell word.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// writeRC writes the integration for kind into dir and returns the argv
// and the environment that make the shell read it. userEnv looks up the
// environment the shell would have had without agentty (the caller's env,
// then the server's), for the user's own ZDOTDIR and ENV.
func writeRC(ctx context.Context, fs files, kind Kind, path, dir, nonce string, noRC bool, userEnv func(string) (string, bool)) ([]string, map[string]string, error) {
	r := strings.NewReplacer("@NONCE@", nonce, "@DIR@", quote(dir))
	env := map[string]string{}
	if noRC {
		env["AGENTTY_NO_RC"] = "1"
	}
	write := func(name, text string) (string, error) {
		return fs.create(ctx, filepath.Join(dir, name), []byte(r.Replace(text)))
	}
	switch kind {
	case Bash:
		p, err := write("bashrc", bashRC)
		return []string{path, "--noprofile", "--rcfile", p, "-i"}, env, err
	case Zsh:
		if _, err := write(".zshenv", zshEnv); err != nil {
			return nil, nil, err
		}
		if _, err := write(".zshrc", zshRC); err != nil {
			return nil, nil, err
		}
		if zd, ok := userEnv("ZDOTDIR"); ok {
			env["AGENTTY_ZDOTDIR"] = zd
		}
		env["ZDOTDIR"] = dir
		return []string{path, "-i"}, env, nil
	case PowerShell:
		p, err := write("rc.ps1", pwshRC)
		return pwshArgv(path, p), env, err
	case Cmd:
		p, err := write("init.cmd", cmdInit)
		delete(env, "AGENTTY_NO_RC") // /D says it
		return cmdArgv(path, p, noRC), env, err
	default:
		p, err := write("shrc", shRC)
		if u, _ := userEnv("ENV"); u != "" {
			env["AGENTTY_USER_ENV"] = u
		}
		env["ENV"] = p
		return []string{path, "-i"}, env, err
	}
}
