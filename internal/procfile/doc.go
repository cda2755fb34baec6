// Package procfile reads Linux /proc files the way per-call hot paths need:
// whole small files into a reused buffer from an open descriptor, paths
// built NUL-terminated in a reused buffer for raw open syscalls, and stat
// lines decoded without allocating. internal/inputwait (every input-wait
// probe) and internal/session (every send_input's look at the foreground)
// share it.
package procfile
