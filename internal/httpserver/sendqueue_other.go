//go:build !linux && !darwin

package httpserver

import "net"

// limitUnsent is a no-op here: the send buffer keeps the system's sizing.
func limitUnsent(net.Conn) {}
