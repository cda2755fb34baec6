package mcpserver

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/agentty/agentty/internal/ports"
	"github.com/agentty/agentty/internal/session"
)

// onListen ends a wait once the program listens (until_listening).
const onListen = "listening"

// listenWait parses until_listening: true waits for any new socket, a
// number for that port; "listening" in return_on alone means true.
func (w WaitParams) listenWait(on map[string]bool) (*session.ListenWait, error) {
	var l *session.ListenWait
	switch v := w.UntilListening.(type) {
	case nil:
	case bool:
		if v {
			l = &session.ListenWait{}
		}
	case float64:
		if v != float64(int(v)) || v < 1 || v > 65535 {
			return nil, fmt.Errorf("%w: until_listening must be true or a port number 1-65535, not %v", session.ErrBadArgs, v)
		}
		l = &session.ListenWait{Port: int(v)}
	default:
		return nil, fmt.Errorf("%w: until_listening must be true or a port number, not %v", session.ErrBadArgs, v)
	}
	switch {
	case l != nil && !on[onListen]:
		return nil, fmt.Errorf("%w: until_listening is given but return_on leaves out listening; add \"listening\"", session.ErrBadArgs)
	case l == nil && on[onListen] && w.ReturnOn != nil:
		l = &session.ListenWait{}
	}
	return l, nil
}

func sockets(ss []ports.Socket) []Socket {
	if len(ss) == 0 {
		return nil
	}
	out := make([]Socket, len(ss))
	for i, s := range ss {
		out[i] = Socket{Proto: s.Proto, Address: s.Address, Port: s.Port, Path: s.Path, PID: s.PID, Command: s.Command}
	}
	return out
}

// writeListening renders sockets as " | listening=tcp 127.0.0.1:8000 (python3),unix /tmp/s".
func writeListening(b *strings.Builder, ss []Socket) {
	if len(ss) == 0 {
		return
	}
	b.WriteString(" | listening=")
	for i, s := range ss {
		if i > 0 {
			b.WriteString(",")
		}
		if s.Proto == "unix" {
			fmt.Fprintf(b, "unix %s", s.Path)
		} else {
			fmt.Fprintf(b, "%s %s", s.Proto, net.JoinHostPort(s.Address, strconv.Itoa(s.Port)))
		}
		fmt.Fprintf(b, " (%s)", s.Command)
	}
}
