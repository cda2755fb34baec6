package server

// Activity is what keeps a daemon alive: sessions whose process runs, and
// MCP clients connected through any front end.
type Activity struct {
	Sessions int // sessions not yet exited (shells included)
	Clients  int // MCP connections open
}

// Idle reports whether nothing runs and nobody is connected.
func (a Activity) Idle() bool { return a.Sessions == 0 && a.Clients == 0 }

// Activity counts the running sessions and the connected clients now.
func (s *Server) Activity() Activity {
	var a Activity
	for _, ss := range s.mgr.List() {
		select {
		case <-ss.Done():
		default:
			a.Sessions++
		}
	}
	for range s.mcp.Sessions() {
		a.Clients++
	}
	return a
}
