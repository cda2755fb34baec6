//go:build linux

package askpass

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// supported: a peer's session can be told here (from /proc).
const supported = true

// sessionOf finds a marker of this server's sessions in pid's environment
// or its ancestors' (sudo may run askpass with a trimmed environment).
func (s *Server) sessionOf(pid int) string {
	key := []byte(s.o.MarkerKey + "=")
	for i := 0; i < 32 && pid > 1; i++ {
		env, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, key); ok && s.o.Session != nil {
				if id, ok := s.o.Session(string(v)); ok {
					return id
				}
			}
		}
		pid = parentOf(pid)
	}
	return ""
}

// parentOf reads pid's parent from /proc, 0 when unknown.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}
