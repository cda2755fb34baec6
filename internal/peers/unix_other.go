//go:build !linux && !darwin && !windows

package peers

import "net"

// Of is ErrNoCred: agentty reads no unix socket peer here (Windows's
// SIO_AF_UNIX_GETPEERPID is not wired yet).
func Of(*net.UnixConn) (Cred, error) { return Cred{}, ErrNoCred }

// unixPeer refuses: a peer that cannot be told is not admitted.
func unixPeer(*net.UnixConn) (int, int, error) { return 0, -1, ErrNoCred }

func alive(int) bool { return false }

func closePidfd(int) {}
