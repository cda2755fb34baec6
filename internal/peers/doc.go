// Package peers decides who may use agentty's doors: the daemon socket,
// the askpass socket, the HTTP and web ports. A process of a session held
// in a sandbox or under limits must not act through agentty beyond them,
// and Landlock does not govern connect(2) to a pathname unix socket, nor
// (without denying the session every TCP port) a loopback TCP port; so
// every accepted connection is checked once, at accept, against the
// server's sessions (Sessions), from kernel facts the peer cannot undo
// from inside its sandbox: its cgroup, its ancestry up to a session's
// root, and, for one of the server's own processes, whether it is more
// confined than the server (no_new_privs, another network namespace).
// See docs/containment.md ("Doors").
package peers
