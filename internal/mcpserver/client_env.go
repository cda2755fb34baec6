package mcpserver

import "context"

// clientEnvKey carries, in an MCP connection's context, the environment of
// the client's "agentty serve": a daemon serves clients started with
// different environments (an MCP client's env settings, a shell's PATH),
// and the local programs a client starts must begin from its own, as they
// do when serve runs standalone.
type clientEnvKey struct{}

// WithClientEnv returns ctx carrying env as the connection's client
// environment.
func WithClientEnv(ctx context.Context, env map[string]string) context.Context {
	return context.WithValue(ctx, clientEnvKey{}, env)
}

// clientEnv is the environment a local program started by this call begins
// from; nil means agentty's own. A remote host's programs keep the
// remote's: host is the call's.
func clientEnv(ctx context.Context, host string) map[string]string {
	if host != "" {
		return nil
	}
	env, _ := ctx.Value(clientEnvKey{}).(map[string]string)
	return env
}
