// Package shell turns a PTY session running bash, zsh or sh into a command
// runner with exact completion.
//
// Design: the shell is an ordinary session of session.Manager (so
// read_output, send_input and terminate_process work on it); this package
// adds an integration script that the shell reads at startup. The script
// makes every prompt emit, before anything else, an OSC 133;D mark with the
// exit status of the last command and an OSC 7 report of the working
// directory, and every command agentty runs emit an OSC 133;C mark when it
// starts. Each mark carries a random per-shell nonce that only the shell
// knows (it is a shell variable, never exported), so a program printing
// marker-like text cannot end a command early. A command's output is exactly
// the bytes between its C and D marks: the echo of the typed line comes
// before C and the prompt after D.
//
// Commands travel as files: the command text is written to a private file
// and the shell is told to source it (" . '/tmp/agentty-cmd-…'"), so multi-line
// commands, heredocs, quotes and aliases need no escaping and the shell's
// line editor never sees them. The shell's own state (cwd, variables,
// functions, venvs, jobs) carries over between commands because they run in
// the shell itself.
//
// Completion is decided by the marks alone; no idle timers and no prompt
// regexes. While a command runs, the only other event that ends a wait is
// the kernel saying the command blocks reading the terminal (input wanted),
// the shell exiting, or the deadline.
package shell
