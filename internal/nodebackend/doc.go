// Package nodebackend runs programs inside Docker containers and
// Kubernetes pods through a node: the same agentty binary started inside
// the target as `agentty node`, talking over the stdin and stdout the
// engine's exec gives it. It presents the node's programs as
// backend.Process values, so sessions, waits, screens, shells and
// transcripts work as for local programs.
//
// Design:
//   - The node starts programs with internal/backend on the target's own
//     kernel: awaiting-input verdicts (internal/inputwait), process trees
//     (internal/proctree) and terminal modes are answered there, as exactly
//     as locally. Screens and transcripts stay local: they are fed by bytes.
//   - The protocol (wire.go) is a small framed one mirroring
//     backend.Process: JSON requests and replies, and binary output frames.
//     One ordered stream carries both, so output written before a reply
//     (Quiet, Wait's exit) is in the local sink when the reply arrives.
//   - Pool keeps one node per target ("docker://NAME"); its sessions share
//     it. When the stream ends (the container stopped, the exec was killed)
//     every process of the node ends as lost with the reason.
//   - The node ends every process tree it started when its input ends, so
//     a local agentty that dies takes its container work with it.
//   - Reaching the target (link.go): through agentty-link, a separate
//     program holding the Docker and Kubernetes clients (internal/nodelink),
//     so this package, and the server, link neither. The link's stdio is
//     the node's; its fd 3 says whether the node started and, at the end,
//     what the engine says became of the target.
package nodebackend
