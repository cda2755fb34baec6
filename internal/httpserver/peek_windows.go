//go:build windows

package httpserver

import "net"

// peek sees nothing on Windows (no non-blocking MSG_PEEK through the
// runtime's poller there): a connection is proven by its first request
// instead, so under a flood a client with the token can lose its
// connection to a newcomer before that request is read.
func peek(net.Conn) []byte { return nil }
