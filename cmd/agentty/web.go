package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"
)

const webHelp = `Usage: agentty web [-socket PATH | -http URL [-token-file FILE]]

Prints a one-time login URL for agentty's live web view: open it in a
browser within 2 minutes; it works once and logs that browser in (an
HttpOnly cookie), then shows the sessions live.

Without -http it asks this user's agentty daemon over its socket (the
daemon must serve the page: agentty daemon -web 127.0.0.1:PORT). With
-http it asks a server started with 'agentty serve -http ...': give its
URL, and its token with -token-file or $AGENTTY_TOKEN (for a server on
this machine, the token serve -http generated for you is found by itself).

Flags:
`

// web prints a login URL for the web view.
func web(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, webHelp); fs.PrintDefaults() }
	var cf consoleFlags
	cf.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentty web: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintf(stderr, "agentty web: %v\n", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	login, err := c.WebLogin(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "agentty web: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, login.URL)
	fmt.Fprintf(stderr, "agentty web: open this URL in a browser before %s; it works once\n", login.Expires.Local().Format(time.TimeOnly))
	return 0
}
