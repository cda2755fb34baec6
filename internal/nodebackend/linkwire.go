package nodebackend

import "time"

// LinkProto is the version of the records agentty-link writes on its
// status descriptor; the server refuses a link that speaks another.
const LinkProto = 1

// The timing contract between the server and agentty-link. The server's
// own waits are these plus a margin, so a link that keeps to them is
// never cut short.
const (
	// LinkCloseGrace is how long the link gives a node to exit once its
	// input ended before it cancels the node's exec.
	LinkCloseGrace = 2 * time.Second
	// LinkWhyLimit bounds how long the link spends asking the engine what
	// became of a target before its last record.
	LinkWhyLimit = 8 * time.Second
)

// LinkStatus is one record agentty-link writes, as a JSON line, on its
// status descriptor (fd 3): first Ready or Error, and once the node's
// stream has ended a last one with Why and Stderr.
type LinkStatus struct {
	Proto  int    `json:"proto,omitempty"`  // on the first record: LinkProto
	Ready  bool   `json:"ready,omitempty"`  // the node's exec started; its stdio follows on the link's
	Error  string `json:"error,omitempty"`  // the node could not be started: why, worded for the agent
	Exe    string `json:"exe,omitempty"`    // with Ready: the agentty the node runs, as a path in the target
	Copied int64  `json:"copied,omitempty"` // with Ready: bytes of agentty copied in for this start (0: reused)
	Why    string `json:"why,omitempty"`    // last record: what the engine says became of the target ("" if nothing)
	Stderr string `json:"stderr,omitempty"` // last record: the node's stderr, bounded
}
