// Package askpass carries sudo's password question from a session to the
// person: sessions get SUDO_ASKPASS pointing at a small script that runs
// `agentty askpass`, which asks the server over a unix socket and prints
// the answer for sudo. The server side checks who connects (peer
// credentials, and that the peer descends from one of this server's
// sessions) and hands the question to the same secret flow as a password
// prompt on a terminal.
//
// The wire format is one JSON line each way: {"prompt": "..."} and
// {"secret": "..."} or {"error": "..."}.
package askpass

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"
)

// SocketEnv names the socket in a session's environment (the askpass
// script passes it as a flag too).
const SocketEnv = "AGENTTY_ASKPASS_SOCKET"

// maxLine bounds one message.
const maxLine = 64 << 10

type request struct {
	Prompt string `json:"prompt"`
}

type reply struct {
	Secret string `json:"secret,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Ask asks the server listening on socket for the answer to prompt and
// returns it. It waits as long as ctx allows (the person may take minutes).
func Ask(ctx context.Context, socket, prompt string) ([]byte, error) {
	if socket == "" {
		return nil, fmt.Errorf("no agentty server to ask: %s is not set (agentty askpass runs inside agentty sessions, as SUDO_ASKPASS)", SocketEnv)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the agentty server: %w", err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Now()) })
	defer stop()
	if err := json.NewEncoder(c).Encode(request{Prompt: prompt}); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("the agentty server closed the connection without an answer")
	}
	var r reply
	if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
		return nil, err
	}
	if r.Error != "" {
		return nil, errors.New(r.Error)
	}
	return []byte(r.Secret), nil
}
