package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentty/agentty/internal/askpass"
)

// askpassCmd is `agentty askpass [-socket path] [prompt]`, what sessions'
// SUDO_ASKPASS runs: it asks the agentty server the session belongs to,
// which asks the person, and prints their answer for sudo on stdout. It
// fails (exit 1, the reason on stderr) when the person declines or
// nobody answers in time; sudo then reports a failed authentication.
func askpassCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("askpass", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sock := fs.String("socket", os.Getenv(askpass.SocketEnv), "the agentty server's askpass socket (default $"+askpass.SocketEnv+")")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	prompt := "Password: "
	if fs.NArg() > 0 {
		prompt = fs.Arg(0)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	secret, err := askpass.Ask(ctx, *sock, prompt)
	if err != nil {
		fmt.Fprintf(stderr, "agentty askpass: %v\n", err)
		return 1
	}
	secret = append(secret, '\n')
	_, err = stdout.Write(secret)
	for i := range secret {
		secret[i] = 0
	}
	if err != nil {
		return 1
	}
	return 0
}
