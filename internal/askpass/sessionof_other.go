//go:build !linux && !darwin

package askpass

// supported: agentty cannot read another process's environment and
// parent here yet, so it could not tell which session asks; Listen says
// so and sessions get no SUDO_ASKPASS.
const supported = false

func (s *Server) sessionOf(int) string { return "" }
