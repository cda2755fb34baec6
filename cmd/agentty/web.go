package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/agentty/agentty/internal/console/client"
	"github.com/agentty/agentty/internal/daemon"
)

const webHelp = `Usage: agentty web [-no-open] [-addr HOST:PORT] [-socket PATH | -http URL [-token-file FILE]]

Opens agentty's live web view in your browser: the sessions of this
user's agentty daemon (the one your MCP clients use), live, with their
terminals to watch and take over.

Without -http it asks the daemon over its socket to serve the page on
loopback (127.0.0.1, a port the system picks, or -addr), whatever flags
the daemon was started with, and opens a one-time login URL in the
browser (xdg-open, open, or the Windows URL handler). With -no-open, or
when no browser opener is found, it prints that URL instead: open it
within 2 minutes; it works once and logs that browser in (an HttpOnly
cookie).

With -http it asks a server started with 'agentty serve -http ...': give
its URL, and its token with -token-file or $AGENTTY_TOKEN (for a server on
this machine, the token serve -http generated for you is found by itself).

Flags:
`

// web opens the web view in a browser, or prints its login URL.
func web(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, webHelp); fs.PrintDefaults() }
	var cf consoleFlags
	cf.register(fs)
	noOpen := fs.Bool("no-open", false, "print the login URL instead of opening a browser")
	addr := fs.String("addr", "", "the loopback HOST:PORT the daemon serves the page on if it serves none yet (default 127.0.0.1 on a free port)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentty web: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *addr != "" && cf.url != "" {
		fmt.Fprintln(stderr, "agentty web: -addr is for the daemon; a server started with serve -http serves the page on its own address")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var login string
	var expires time.Time
	if cf.url != "" {
		c, err := cf.client()
		if err != nil {
			fmt.Fprintf(stderr, "agentty web: %v\n", err)
			return 2
		}
		l, err := c.WebLogin(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "agentty web: %v\n", err)
			return 1
		}
		login, expires = l.URL, l.Expires
	} else {
		socket := cf.socket
		if socket == "" {
			var err error
			if socket, err = client.SocketPath(); err != nil {
				fmt.Fprintf(stderr, "agentty web: %v\n", err)
				return 2
			}
		}
		r, err := daemon.OpenWeb(ctx, socket, *addr)
		if errors.Is(err, daemon.ErrNoDaemon) {
			fmt.Fprintf(stderr, "agentty web: no agentty daemon runs: it starts with the first MCP client (agentty serve) and keeps that client's sessions; "+
				"a server started with agentty serve -http shows its sessions with agentty web -http URL (%v)\n", err)
			return 1
		}
		if err != nil {
			fmt.Fprintf(stderr, "agentty web: %v\n", err)
			return 1
		}
		login, expires = r.Login, r.Expires
	}
	if !*noOpen {
		opener, err := openBrowser(login)
		if err == nil {
			fmt.Fprintf(stderr, "agentty web: opened the web view in your browser (%s)\n", opener)
			return 0
		}
		fmt.Fprintf(stderr, "agentty web: %v\n", err)
	}
	fmt.Fprintln(stdout, login)
	fmt.Fprintf(stderr, "agentty web: open this URL in a browser before %s; it works once\n", expires.Local().Format(time.TimeOnly))
	return 0
}
