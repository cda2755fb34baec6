package main

import (
	"context"
	"flag"
	"io"

	"github.com/agentty/agentty/internal/console/client"
)

const logsUsage = `Usage: agentty logs [flags] ID

Prints a session's output as text (escape sequences removed); -raw keeps the
bytes as the program wrote them. -f keeps printing new output until the
session ends (Ctrl-C stops). Reading the log moves no agent's cursor.

`

func logs(args []string, stdout, stderr io.Writer) int {
	var o client.LogOptions
	setup := func(fs *flag.FlagSet) {
		fs.BoolVar(&o.Follow, "f", false, "follow: print new output until the session ends")
		fs.Int64Var(&o.SinceLine, "since-line", 0, "print the output after this line (0: from the start)")
		fs.BoolVar(&o.Raw, "raw", false, "the output as written, escape sequences and all")
	}
	return consoleCommand("logs", logsUsage, args, stderr, true, setup, func(ctx context.Context, c *client.Client, id string) error {
		err := c.Log(ctx, id, o, stdout)
		if ctx.Err() != nil {
			return nil // Ctrl-C ends a follow
		}
		return err
	})
}
