package daemon

import (
	"errors"
	"io"
	"net"
	"os"
	"time"
)

// Relay copies in to conn and conn to out until both directions end, each
// in its own goroutine so a slow side never stalls the other. The end of in
// half-closes conn (the daemon ends the MCP connection and closes its side,
// which ends the other direction). When the daemon's side ends first, the
// copy from in is stopped through in's read deadline and waited for; in
// without one (not pollable) is left to its blocked read, which ends with
// the process. It returns nil after the end of in, io.ErrUnexpectedEOF
// when the daemon went away first, or a copy's error.
func Relay(in io.Reader, out io.Writer, conn net.Conn) error {
	up := make(chan error, 1) // the copy from in ended: its error
	go func() {
		_, err := io.Copy(conn, in)
		// Sent before the half-close, so once the daemon answers it by
		// closing, up already says the client ended first.
		up <- err
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
	}()
	_, downErr := io.Copy(out, conn)
	select {
	case err := <-up:
		conn.Close()
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return err
		}
		return downErr
	default:
	}
	// The daemon's side ended while the client still writes: the daemon
	// went away (or the write half failed).
	conn.Close()
	if d, ok := in.(interface{ SetReadDeadline(time.Time) error }); ok && d.SetReadDeadline(time.Unix(1, 0)) == nil {
		<-up
	}
	if downErr != nil {
		return downErr
	}
	return io.ErrUnexpectedEOF
}
