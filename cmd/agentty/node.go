package main

import (
	"fmt"
	"io"

	core "github.com/agentty/agentty/internal/server"
)

// runNode runs `agentty node`: the local agentty started it inside a container
// and speaks to it on stdin and stdout; it ends when stdin ends.
func runNode(stdin io.Reader, stdout, stderr io.Writer) int {
	if err := core.RunNode(stdin, stdout, version); err != nil {
		fmt.Fprintln(stderr, "agentty node:", err)
		return 1
	}
	return 0
}
