package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/agentty/agentty/internal/console/client"
)

const attachUsage = `Usage: agentty attach [flags] ID

Makes this terminal the session's terminal: its output (history first, then
live), your keystrokes into it, your window size applied to it. While you
type you hold the keyboard: agents' send_input and exec_command into the
session are refused until you detach, hand it back, or stop typing for the
lease time (30 s by default); they can still read its output.

Keys: ` + client.DetachHelp + `.
-read-only watches without typing or resizing.

`

func attach(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var readOnly bool
	setup := func(fs *flag.FlagSet) {
		fs.BoolVar(&readOnly, "read-only", false, "watch only: keystrokes are not sent")
	}
	return consoleCommand("attach", attachUsage, args, stderr, true, setup, func(ctx context.Context, c *client.Client, id string) error {
		o := client.AttachOptions{In: stdin, Out: stdout, ReadOnly: readOnly}
		if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			fd := int(f.Fd())
			old, err := term.MakeRaw(fd)
			if err != nil {
				return fmt.Errorf("raw mode: %w", err)
			}
			defer term.Restore(fd, old)
			o.Size = func() (int, int, error) {
				cols, rows, err := term.GetSize(fd)
				return rows, cols, err
			}
			resized := make(chan struct{}, 1)
			o.Resized = resized
			defer watchResize(ctx, fd, resized)()
		}
		o.Attached = func() { fmt.Fprintf(stderr, "[agentty: attached to %s; %s]\r\n", id, client.DetachHelp) }
		res, err := client.Attach(ctx, c, id, o)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "\r\n[agentty: %s]\r\n", res)
		return nil
	})
}
