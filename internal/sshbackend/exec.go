package sshbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
)

// ErrRemoteCommand is returned by Exec when the script exits non-zero.
var ErrRemoteCommand = errors.New("remote command failed")

// Exec runs a short POSIX sh script on host over a channel of its shared
// connection, with stdin as its input, and returns its stdout. args are
// the script's positional parameters ($1...). Everything travels as
// single-quoted words through /bin/sh, whatever the user's login shell is,
// so no byte of script or args is interpreted by it.
//
// It is the file channel of remote shells (integration files, command
// files, write_file): one channel per call, closed before it returns.
func (p *Pool) Exec(ctx context.Context, host string, accept bool, script string, args []string, stdin []byte) ([]byte, error) {
	t, err := parseTarget(host, loadConfig(p.opts.ConfigFile))
	if err != nil {
		return nil, err
	}
	c, err := p.conn(t, accept)
	if err != nil {
		return nil, err
	}
	sess, err := c.newSession()
	if err != nil {
		hint := ""
		if strings.Contains(err.Error(), "administratively prohibited") {
			hint = fmt.Sprintf("; the server allows only so many channels per connection (sshd MaxSessions, default 10): %d sessions and the probe are open, and remote shells need one more for a moment per command; terminate idle sessions or raise MaxSessions", c.count())
		}
		return nil, fmt.Errorf("%w: open a channel on %s: %v%s", ErrConnect, c.target.Key(), err, hint)
	}
	defer sess.Close()
	var out, errb bytes.Buffer
	sess.Stdin = bytes.NewReader(stdin)
	sess.Stdout, sess.Stderr = &out, &errb
	cmd := "exec /bin/sh -c " + shellQuote(script) + " agentty"
	for _, a := range args {
		cmd += " " + shellQuote(a)
	}
	done := make(chan error, 1)
	go func() { done <- sess.Run(cmd) }() // ends when the channel closes (exit or sess.Close below)
	select {
	case err = <-done:
	case <-ctx.Done():
		sess.Close()
		<-done
		return nil, ctx.Err()
	}
	if err != nil {
		var ee *ssh.ExitError
		if errors.As(err, &ee) {
			return out.Bytes(), fmt.Errorf("%w on %s (exit %d): %s", ErrRemoteCommand, c.target.Key(), ee.ExitStatus(), strings.TrimSpace(errb.String()))
		}
		return out.Bytes(), fmt.Errorf("%w: run on %s: %v", ErrConnect, c.target.Key(), err)
	}
	return out.Bytes(), nil
}
