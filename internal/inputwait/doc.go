// Package inputwait decides, from the kernel's view of a process tree,
// whether a program is waiting for input.
//
// agentty's reading tools return "the moment the program waits for input".
// Guessing that from printed text (prompts) is unreliable, so this package
// looks at what the kernel says instead. On Linux (amd64, arm64) the verdict
// is exact: which syscall each thread of the relevant process group is
// blocked in (/proc/PID/task/TID/syscall), and whether that syscall waits
// for readability of the program's input (the PTY slave, /dev/tty, or the
// stdin pipe). The decoding of select, poll and epoll arguments reads the
// blocked process's memory and fdinfo. Where a kernel shows less, a Target
// gets another Verdict, or none (ErrNoVerdict): see Verdict.
//
// Remote judges the same facts collected on a remote Linux host; it runs on
// every platform, as it decodes Linux's ABI rather than this machine's.
//
// A Probe also carries a Fingerprint of how much the inspected processes
// have run, so a caller can tell a fresh "awaiting input" from the stale one
// observed just before it wrote input that the program has not consumed yet.
package inputwait
