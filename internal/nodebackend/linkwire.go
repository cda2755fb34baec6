package nodebackend

// LinkProto is the version of the records agentty-link writes on its
// status descriptor; the server refuses a link that speaks another.
const LinkProto = 1

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
