package server

import (
	"io"

	"github.com/agentty/agentty/internal/nodebackend"
)

// RunNode is `agentty node`: the agentty inside a container, serving the
// local agentty that started it on r and w until r ends (docs/nodes.md).
func RunNode(r io.Reader, w io.Writer, version string) error {
	return nodebackend.Serve(r, w, version)
}
