package sshbackend

import (
	"maps"
	"slices"
	"strings"

	"github.com/agentty/agentty/internal/backend"
)

// wrapper runs the program: it reports its pid (which the program keeps,
// since everything is exec'd), changes directory and execs the argv.
const wrapper = `printf '\036agentty-pid %s\n' "$$"; [ -z "$1" ] || cd -- "$1" || exit 126; shift; exec "$@"`

// remoteCommand builds the command line sent to sshd, which runs it with
// the user's login shell; exec and env keep it shell-agnostic.
func remoteCommand(spec backend.RemoteSpec) string {
	var b strings.Builder
	b.WriteString("exec env ")
	b.WriteString(shellQuote("AGENTTY_SESSION=" + spec.Marker))
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		b.WriteString(" " + shellQuote(k+"="+spec.Env[k]))
	}
	script := wrapper
	if spec.MergeStderr && !spec.PTY {
		script = "exec 2>&1; " + script
	}
	b.WriteString(" /bin/sh -c " + shellQuote(script) + " agentty " + shellQuote(remoteDir(spec.Dir)))
	for _, a := range spec.Argv {
		b.WriteString(" " + shellQuote(a))
	}
	return b.String()
}

// remoteDir turns ~ forms into paths relative to the login directory,
// where the command starts.
func remoteDir(d string) string {
	switch {
	case d == "~":
		return ""
	case strings.HasPrefix(d, "~/"):
		return "./" + d[2:]
	}
	return d
}
