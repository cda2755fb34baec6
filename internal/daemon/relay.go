package daemon

import (
	"errors"
	"io"
	"net"
	"os"
	"time"
)

// relayDrain bounds how long the relay keeps handing the client what the
// daemon sent once the daemon has closed while the client still writes.
var relayDrain = 10 * time.Second

// connWriter records whether a write to the daemon failed.
type connWriter struct {
	net.Conn
	failed bool // written and read by the copying goroutine only
}

func (w *connWriter) Write(p []byte) (int, error) {
	n, err := w.Conn.Write(p)
	if err != nil {
		w.failed = true
	}
	return n, err
}

// Relay copies in to conn and conn to out until both directions end, each
// in its own goroutine so a slow side never stalls the other. The end of in
// half-closes conn (the daemon ends the MCP connection and closes its side,
// which ends the other direction). When the daemon's side ends first, the
// copy from in is stopped through in's read deadline and waited for; in
// without one (not pollable) is left to its blocked read, which ends with
// the process. When a write to conn fails (the daemon closed while the
// client still writes, as it does to a client that does not read its
// replies), the copy to out gets relayDrain through out's write deadline. It returns nil after the end of in, io.ErrUnexpectedEOF
// when the daemon went away first, or a copy's error.
func Relay(in io.Reader, out io.Writer, conn net.Conn) error {
	up := make(chan error, 1) // the copy from in ended: its error
	go func() {
		cw := &connWriter{Conn: conn}
		_, err := io.Copy(cw, in)
		// Sent before the half-close, so once the daemon answers it by
		// closing, up already says the client ended first.
		up <- err
		if cw.failed {
			// The daemon closed while the client still writes: it went, or
			// it cut this client off for not reading its replies. What it
			// sent has relayDrain to reach the client; a client that does
			// not read must not hold the relay forever.
			if d, ok := out.(interface{ SetWriteDeadline(time.Time) error }); ok {
				_ = d.SetWriteDeadline(time.Now().Add(relayDrain))
			}
		}
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
