// Package sshbackend runs programs on other machines over SSH and presents
// them as backend.Process values, so sessions, waits, cursors and
// transcripts work the same as for local programs.
//
// Design:
//   - Pool keeps one SSH connection per (user, host, port); every session on
//     that host is a channel of it. A keepalive goroutine and a watcher
//     goroutine per connection notice a dead or stalled link; the
//     connection's processes then end as lost (backend.Exit.Lost) and the
//     next start dials again.
//   - Each connection runs one control helper on the remote host: a POSIX
//     shell loop on a second channel (helper.sh) that answers "is this
//     process group blocked reading its input?" from the remote /proc, and
//     signals or kills a session's process tree. It runs only on Linux
//     remotes; elsewhere waits fall back to until/settle_ms and say so.
//   - The remote command is wrapped so its pid is known (the wrapper prints
//     it on a marked first line that never reaches the log), it carries the
//     AGENTTY_SESSION marker, and it leads its own session (sshd calls
//     setsid), so termination finds the whole tree.
//   - Secrets (passwords, key passphrases) come from Options, filled from
//     the configuration or named environment variables, never from tool
//     arguments, and are never written to results, errors or logs.
package sshbackend
