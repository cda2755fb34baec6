package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agentty/agentty/internal/console/client"
)

// consoleFlags are where ls, attach, logs, kill and export find agentty:
// the user's daemon by its socket, or a remote agentty by -http and token.
type consoleFlags struct {
	socket    string
	url       string
	tokenFile string
}

func (c *consoleFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.socket, "socket", "", "the daemon's unix socket (default $"+client.SocketEnv+", else $XDG_RUNTIME_DIR/agentty/agentty.sock, else $XDG_STATE_HOME/agentty/run/agentty.sock)")
	fs.StringVar(&c.url, "http", "", "reach a remote agentty at this URL (http://host:port) instead of the daemon")
	fs.StringVar(&c.tokenFile, "token-file", "", "file holding the bearer token for -http (else $"+tokenEnv+", else the token serve -http generated for this user)")
}

// client connects to the console the flags name.
func (c *consoleFlags) client() (*client.Client, error) {
	t := client.Target{Socket: c.socket, URL: c.url}
	if c.url != "" {
		t.Token = strings.TrimSpace(os.Getenv(tokenEnv))
		if c.tokenFile != "" {
			b, err := os.ReadFile(c.tokenFile)
			if err != nil {
				return nil, fmt.Errorf("-token-file: %w", err)
			}
			t.Token = strings.TrimSpace(string(b))
		}
		if t.Token == "" && loopbackURL(c.url) {
			// The one serve -http generated for this user, if any: a
			// local server started without flags. Never sent elsewhere.
			if path, err := defaultHTTPTokenPath(); err == nil {
				t.Token, _ = readTokenFile(path)
			}
		}
	}
	return client.New(t)
}

// consoleCommand parses a console subcommand's flags, which take exactly
// one session id when wantID, and runs do with a client and a context that
// ends on SIGINT or SIGTERM.
func consoleCommand(name, usage string, args []string, stderr io.Writer, wantID bool, setup func(*flag.FlagSet),
	do func(ctx context.Context, c *client.Client, id string) error) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var cf consoleFlags
	cf.register(fs)
	if setup != nil {
		setup(fs)
	}
	if err := fs.Parse(reorder(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	id := ""
	switch {
	case wantID && fs.NArg() != 1:
		fmt.Fprintf(stderr, "agentty %s: give one session id (agentty ls lists them)\n", name)
		return 2
	case wantID:
		id = fs.Arg(0)
	case fs.NArg() != 0:
		fmt.Fprintf(stderr, "agentty %s: unexpected argument %q\n", name, fs.Arg(0))
		return 2
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintf(stderr, "agentty %s: %v\n", name, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := do(ctx, c, id); err != nil {
		fmt.Fprintf(stderr, "agentty %s: %v\n", name, err)
		return 1
	}
	return 0
}

// reorder moves flags after the session id in front of it, so both
// `agentty logs -f s1` and `agentty logs s1 -f` work.
func reorder(fs *flag.FlagSet, args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && i+1 < len(args) {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				flags = append(flags, args[i+1])
				i++
			}
		}
	}
	return append(flags, rest...)
}
