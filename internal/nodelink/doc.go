// Package nodelink is agentty-link: it reaches a Docker container or a
// Kubernetes pod, starts `agentty node` in it (copying a static agentty in
// first when the target has none of this build) and relays the node's
// stdin and stdout over its own until either side ends.
//
// It is a program of its own (cmd/agentty-link) so that the server binary
// links neither the Docker client nor client-go: their package inits and
// size would cost every server start, and most servers never reach a
// container. internal/nodebackend starts one link per node and reads its
// status records (nodebackend.LinkStatus) on fd 3.
//
// Design:
//   - Docker (docker.go): the Engine API (DOCKER_HOST and the other
//     DOCKER_* variables, else the default socket); the binary goes in
//     through the archive upload into a private path named by version and
//     checksum (binary.go), reused by later starts.
//   - Kubernetes (k8s.go, k8s_client.go, k8s_stream.go): the same node over
//     client-go's pods/exec stream (WebSocket, SPDY fallback) behind a small
//     podAPI seam; the binary goes in as a tar stream over exec.
//   - Run (run.go) owns the relay: one goroutine copies the server's input
//     to the node and ends the stream at its end; the caller's goroutine
//     copies the node's output back, then reports the end.
package nodelink
