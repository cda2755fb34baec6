package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/agentty/agentty/internal/console/client"
)

const exportUsage = `Usage: agentty export [flags] ID > session.cast

Writes a session's transcript as an asciicast v2 recording (asciinema play
session.cast replays it; times come from the transcript store, resizes are
events, input typed at a password prompt stays redacted), or with
-format text as plain text.

`

func export(args []string, stdout, stderr io.Writer) int {
	format := "cast"
	setup := func(fs *flag.FlagSet) {
		fs.StringVar(&format, "format", "cast", "cast (asciicast v2) or text")
	}
	return consoleCommand("export", exportUsage, args, stderr, true, setup, func(ctx context.Context, c *client.Client, id string) error {
		if format != "cast" && format != "text" {
			return fmt.Errorf("-format is cast or text, not %q", format)
		}
		return c.Export(ctx, id, format, stdout)
	})
}
