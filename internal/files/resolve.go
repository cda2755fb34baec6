package files

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrDriveRelative is a Windows path such as C:notes.txt: relative to a
// current directory per drive, which a session does not have.
var ErrDriveRelative = errors.New("the path is relative to a drive's current directory")

// Resolve makes p absolute against base (the session's or agentty's
// working directory). On Windows a path with a drive letter and a root
// (C:\x) or a UNC path (\\server\share\x) is absolute, one with a root but
// no drive (\x) is on base's drive, and one with a drive but no root (C:x)
// is refused: it would name the drive's own current directory.
func Resolve(base, p string) (string, error) {
	if runtime.GOOS != "windows" {
		return resolve(base, p, false)
	}
	r, err := resolve(base, p, true)
	if err != nil {
		return "", err
	}
	return filepath.Clean(r), nil
}

func resolve(base, p string, windows bool) (string, error) {
	if !windows {
		if filepath.IsAbs(p) {
			return p, nil
		}
		return filepath.Join(base, p), nil
	}
	vol := winVolume(p)
	rest := p[len(vol):]
	switch {
	case strings.HasPrefix(vol, `\\`) || strings.HasPrefix(vol, "//"):
		return p, nil // UNC, or a \\?\ device path: always absolute
	case vol != "" && rest != "" && isSlash(rest[0]):
		return p, nil
	case vol != "":
		return "", fmt.Errorf("%w: %s; give the full path, such as %s\\%s", ErrDriveRelative, p, vol, rest)
	case rest != "" && isSlash(rest[0]):
		return winVolume(base) + p, nil
	}
	return strings.TrimRight(base, `\/`) + `\` + p, nil
}

func isSlash(c byte) bool { return c == '\\' || c == '/' }

// winVolume is p's volume as Windows reads it: "C:", "\\server\share",
// or a whole \\?\ or \\.\ device path; "" for none.
func winVolume(p string) string {
	if len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z') {
		return p[:2]
	}
	if len(p) < 3 || !isSlash(p[0]) || !isSlash(p[1]) {
		return ""
	}
	if p[2] == '?' || p[2] == '.' {
		return p
	}
	// \\server\share: two names after the leading pair.
	n, i := 0, 2
	for ; i < len(p); i++ {
		if isSlash(p[i]) {
			if n++; n == 2 {
				break
			}
		}
	}
	return p[:i]
}
