package main

import (
	"context"
	"fmt"
	"io"

	"github.com/agentty/agentty/internal/console/client"
)

const killUsage = `Usage: agentty kill [flags] ID

Terminates a session's whole process tree (SIGTERM, SIGKILL after 2 s) and
prints how it ended.

`

func kill(args []string, stdout, stderr io.Writer) int {
	return consoleCommand("kill", killUsage, args, stderr, true, nil, func(ctx context.Context, c *client.Client, id string) error {
		s, err := c.Kill(ctx, id)
		if err != nil {
			return err
		}
		how := s.State
		switch {
		case s.Signal != "":
			how += ": killed by " + s.Signal
		case s.ExitCode != nil:
			how += fmt.Sprintf(": exit code %d", *s.ExitCode)
		}
		fmt.Fprintf(stdout, "%s %s\n", s.ID, how)
		return nil
	})
}
