package proctree

import "bytes"

// envHasEntry reports whether env contains exactly the entry "KEY=value".
func envHasEntry(env []byte, entry string) bool {
	return eachEnv(env, func(e []byte) bool { return string(e) == entry })
}

// envHasPrefix reports whether some entry of env starts with prefix.
func envHasPrefix(env []byte, prefix string) bool {
	return eachEnv(env, func(e []byte) bool { return bytes.HasPrefix(e, []byte(prefix)) })
}

// eachEnv reports whether match holds for any NUL-separated entry of env.
func eachEnv(env []byte, match func([]byte) bool) bool {
	for len(env) > 0 {
		i := bytes.IndexByte(env, 0)
		var e []byte
		if i < 0 {
			e, env = env, nil
		} else {
			e, env = env[:i], env[i+1:]
		}
		if len(e) > 0 && match(e) {
			return true
		}
	}
	return false
}
