package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/agentty/agentty/internal/console/client"
)

const lsUsage = `Usage: agentty ls [flags]

Lists the sessions of the user's agentty daemon (or of -http URL): the live
ones, then recent past ones from the transcript store, with state, age,
command, host and who holds the keyboard (attach, web: a person typing).

`

func ls(args []string, stdout, stderr io.Writer) int {
	return consoleCommand("ls", lsUsage, args, stderr, false, nil, func(ctx context.Context, c *client.Client, _ string) error {
		ss, err := c.List(ctx)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tSTATE\tAGE\tHOLDER\tHOST\tCOMMAND")
		for _, s := range ss {
			state, holder, host := s.State, s.Holder, s.Host
			if s.ExitCode != nil {
				state = fmt.Sprintf("%s(%d)", state, *s.ExitCode)
			} else if s.Signal != "" {
				state = state + "(" + s.Signal + ")"
			}
			if holder == "" {
				holder = "-"
			}
			if host == "" {
				host = "local"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, state, client.Age(s.AgeS), holder, host, s.Command)
		}
		return w.Flush()
	})
}
