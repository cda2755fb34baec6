package darwinproc

import (
	"bytes"
	"errors"
)

// Args is a process's command line and environment from
// sysctl kern.procargs2.
type Args struct {
	Exec string   // the path the kernel executed
	Argv []string // argv, argv[0] first
	Env  []string // KEY=value; empty where macOS withholds it (SIP)
}

// errProcArgs: the kern.procargs2 buffer is not what the kernel writes.
var errProcArgs = errors.New("kern.procargs2: malformed")

// parseProcArgs decodes kern.procargs2: argc (int32), the executable's
// path, NUL padding, argc NUL-terminated arguments, then the environment,
// NUL-terminated strings up to an empty one (after it come the "apple"
// strings the loader reads, not the environment).
func parseProcArgs(b []byte) (Args, error) {
	if len(b) < 4 {
		return Args{}, errProcArgs
	}
	argc := int(int32(le.Uint32(b)))
	b = b[4:]
	i := bytes.IndexByte(b, 0)
	if argc < 0 || i < 0 {
		return Args{}, errProcArgs
	}
	a := Args{Exec: string(b[:i])}
	b = bytes.TrimLeft(b[i:], "\x00")
	for len(a.Argv) < argc {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			if len(b) > 0 { // the area ended without its NUL: keep what is there
				a.Argv = append(a.Argv, string(b))
			}
			return a, nil
		}
		a.Argv = append(a.Argv, string(b[:i]))
		b = b[i+1:]
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i == 0 {
			break
		}
		if i < 0 {
			i = len(b)
		}
		a.Env = append(a.Env, string(b[:i]))
		b = b[min(i+1, len(b)):]
	}
	return a, nil
}

// Getenv is the value of key in the environment, and whether it is set.
func (a Args) Getenv(key string) (string, bool) {
	for _, kv := range a.Env {
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:], true
		}
	}
	return "", false
}
