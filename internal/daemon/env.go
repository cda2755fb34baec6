package daemon

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// maxEnv bounds a client's encoded environment: far above any real one,
// far below what would let a client make the daemon hold much memory.
const maxEnv = 512 << 10

// EncodeEnv encodes KEY=VALUE entries for HeaderEnv: base64 of a JSON
// object, since values may hold newlines and bytes a header cannot.
func EncodeEnv(env []string) string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return base64.StdEncoding.EncodeToString(b)
}

// DecodeEnv reverses EncodeEnv. An empty header gives nil (a client that
// sent none: the daemon's own environment applies).
func DecodeEnv(h string) (map[string]string, error) {
	if h == "" {
		return nil, nil
	}
	if len(h) > maxEnv {
		return nil, errors.New("client environment too large")
	}
	b, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		return nil, err
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}
