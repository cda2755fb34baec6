package askpass

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// envValues are the values of key in pid's environment (/proc/PID/environ),
// none when it cannot be read.
func envValues(pid int, key string) []string {
	env, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	prefix := []byte(key + "=")
	var out []string
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			out = append(out, string(v))
		}
	}
	return out
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
