package daemon

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// SocketName is the socket's file name in its directory.
const SocketName = "agentty.sock"

// maxSocketPath is the longest path a unix socket address holds (sun_path
// is 108 bytes with its terminating NUL).
const maxSocketPath = 107

// DefaultSocket is $XDG_RUNTIME_DIR/agentty/agentty.sock, or, without a
// usable runtime directory, stateDir/run/agentty.sock (stateDir is the
// transcript store's default directory, $XDG_STATE_HOME/agentty).
func DefaultSocket(getenv func(string) string, stateDir string) (string, error) {
	if d := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "agentty", SocketName), nil
	}
	if stateDir == "" {
		return "", errors.New("no runtime or state directory for the daemon socket; give -socket")
	}
	return filepath.Join(stateDir, "run", SocketName), nil
}

// prepareDir creates the socket's directory 0700 and checks it is ours and
// closed to others: a socket in a directory others can write could be
// replaced under us. A directory that holds only agentty's own files (or
// nothing) is made 0700; a shared one that -socket named (/tmp, a home)
// is never changed: one others can write is refused, any other is used
// as it is, the socket itself being 0600 and every peer's uid checked.
func prepareDir(socket string) error {
	if len(socket) > maxSocketPath {
		return fmt.Errorf("socket path %s is %d bytes, over the %d a unix socket allows; give a shorter -socket", socket, len(socket), maxSocketPath)
	}
	dir := filepath.Dir(socket)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if err := checkOwner(dir, st); err != nil {
		return err
	}
	if st.Mode().Perm() == 0o700 {
		return nil
	}
	own, err := onlyOurs(dir, filepath.Base(socket))
	if err != nil {
		return fmt.Errorf("socket directory %s: %w", dir, err)
	}
	if own {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("socket directory %s: %w", dir, err)
		}
		return nil
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("socket directory %s can be written by others (mode %04o) and holds other files, so it is left alone; give -socket a path in a directory of its own, such as %s",
			dir, st.Mode().Perm()|st.Mode()&os.ModeSticky, filepath.Join(dir, "agentty", SocketName))
	}
	return nil
}

// onlyOurs reports whether dir holds nothing but the socket named name and
// its lock file.
func onlyOurs(dir, name string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(3)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	for _, n := range names {
		if n != name && n != name+".lock" {
			return false, nil
		}
	}
	return true, nil
}
