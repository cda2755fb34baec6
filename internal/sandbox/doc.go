// Package sandbox applies a session's rlimits, Landlock rules, private
// network and no_new_privs inside the child, never in the server: the child
// is first the agentty binary itself (HelperArg), which applies the profile
// to itself and then execve's the program, so the program and everything it
// starts inherit it. A pipe closed on exec tells the parent whether it got
// that far: a sandbox that cannot be applied fails the start with the
// reason instead of running the program unsandboxed.
package sandbox

// HelperArg is argv[1] of the re-executed binary; main (and TestMain of
// packages whose tests start sandboxed children) hands over to Main when
// it sees it.
const HelperArg = "__sandbox"

// IsHelper reports whether this process was started as the helper.
func IsHelper(args []string) bool { return len(args) > 1 && args[1] == HelperArg }
