package proctree

import (
	"strconv"
	"strings"
)

// KeeperArg is the subcommand word that makes agentty's executable a
// session's keeper (RunKeeper); guardstart runs it.
const KeeperArg = "__keeper"

// KeeperEnv is the environment to start a keeper with (env, agentty's
// own, without any session marker) and the program's environment as the
// keeper reads it from its control socket.
func KeeperEnv(env, program []string) (keeper []string, wire []byte) {
	for _, e := range env {
		if !strings.HasPrefix(e, EnvKey+"=") {
			keeper = append(keeper, e)
		}
	}
	var b strings.Builder
	for _, e := range program {
		b.WriteString(e)
		b.WriteByte(0)
	}
	return keeper, []byte("env " + strconv.Itoa(b.Len()) + "\n" + b.String())
}
