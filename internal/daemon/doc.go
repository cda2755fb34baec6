// Package daemon is the per-user agentty daemon's socket: where it lives,
// how it is claimed (one daemon per socket), who may connect (the same uid,
// checked with SO_PEERCRED on every connection), the small HTTP protocol
// spoken on it, and the client side "agentty serve" uses to find or start a
// daemon and relay an MCP client's stdio over it.
//
// The socket speaks HTTP/1.1. GET /v1/mcp with Connection: Upgrade and
// Upgrade: agentty-mcp answers 101; the connection is then a
// newline-delimited JSON-RPC stream exactly like stdio. GET /v1/daemon
// reports the daemon's Status; POST /v1/daemon/stop asks an idle daemon to
// exit. The person's console API is mounted under /v1/ beside them.
//
// The package imports no engine and speaks no MCP: the server core serves
// the socket (internal/server's Daemon front end), cmd/agentty dials it.
package daemon
