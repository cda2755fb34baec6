// Package policy decides whether agentty may run a command, before anything
// runs. Users let an agent loose on a machine; the policy says which
// executables it may start, where, and which need a human's confirmation.
//
// Text matching is not enough: a blocklist that looks for "rm" misses
// r”m, $(rm x), `rm x`, env rm, /bin/rm, sh -c 'rm x' and many more. So
// shell command lines are parsed with a real shell parser
// (mvdan.cc/sh/v3/syntax) and every simple command in them is checked:
// inside pipelines, lists, subshells, command substitutions, process
// substitutions, function bodies, and behind wrappers that run another
// command (env, sudo, nice, timeout, xargs, find -exec, sh -c '...').
// Whatever the checker cannot decide before the shell runs — eval, source, a
// command name computed from a variable or a glob, a -c script that comes
// from stdin — is refused with the reason, so a refusal is always explained
// and an allowed command is always one the checker understood.
//
// A program on the allow list is trusted with everything it can do:
// allowing python3 allows python3 -c 'import os; os.system("rm x")',
// allowing git allows git aliases, hooks and pagers. Allow interpreters only
// when that is what you mean.
//
// A nil *Policy allows everything; a Policy with no rules configured only
// protects its Protected directories (the configuration and audit log), so
// the agent cannot change the configuration that governs it.
package policy
