//go:build linux || darwin

package askpass

// supported: a peer's session can be told here, from the environment of
// the peer and its ancestors.
const supported = true

// sessionOf finds a marker of this server's sessions in pid's environment
// or its ancestors' (sudo may run askpass with a trimmed environment, and
// its own, root's, may not be readable).
func (s *Server) sessionOf(pid int) string {
	if s.o.Session == nil {
		return ""
	}
	for i := 0; i < 32 && pid > 1; i++ {
		for _, v := range envValues(pid, s.o.MarkerKey) {
			if id, ok := s.o.Session(v); ok {
				return id
			}
		}
		pid = parentOf(pid)
	}
	return ""
}
