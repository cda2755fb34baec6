package sshbackend

import (
	"fmt"

	"golang.org/x/crypto/ssh"
)

// newSession opens a channel, giving up when the connection ends first.
//
// Why: x/crypto/ssh's channel open waits for the server's answer on a Go
// channel that the connection's reader closes when the connection ends;
// an open that registers itself just after that (the connection dropping
// at the same moment) waits forever. Holding a lock across such an open
// (helperFor holds hmu) deadlocked the connection's watcher and so
// Pool.Close. The open runs in its own goroutine, which ends when
// NewSession returns (at once in every case but that library race, where
// it stays parked without holding anything of ours); a session it opens
// after the caller gave up belongs to a dead connection and is closed.
func (c *Conn) newSession() (*ssh.Session, error) {
	type opened struct {
		s   *ssh.Session
		err error
	}
	ch := make(chan opened) // unbuffered: a session is handed over or closed, never dropped
	gave := make(chan struct{})
	go func() {
		s, err := c.client.NewSession()
		select {
		case ch <- opened{s, err}:
		case <-gave:
			if s != nil {
				s.Close()
			}
		}
	}()
	select {
	case o := <-ch:
		return o.s, o.err
	case <-c.dead:
		close(gave)
		// The open may have finished at the same moment: take it.
		select {
		case o := <-ch:
			if o.s != nil {
				o.s.Close()
			}
		default:
		}
		return nil, fmt.Errorf("%w: %s", ErrLost, c.lostReason())
	}
}
