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

// DefaultSocket is $XDG_RUNTIME_DIR/agentty/agentty.sock (on Windows
// %LOCALAPPDATA%\agentty\agentty.sock), or, without a usable runtime
// directory, stateDir/run/agentty.sock (stateDir is the transcript store's
// default directory, $XDG_STATE_HOME/agentty).
func DefaultSocket(getenv func(string) string, stateDir string) (string, error) {
	if d := getenv(runtimeDirEnv); filepath.IsAbs(d) {
		return filepath.Join(d, "agentty", SocketName), nil
	}
	if stateDir == "" {
		return "", errors.New("no runtime or state directory for the daemon socket; give -socket")
	}
	return filepath.Join(stateDir, "run", SocketName), nil
}

// prepareDir creates the socket's directory private (0700; on Windows a
// protected DACL for the user and SYSTEM) and checks it is ours and closed
// to others: a socket in a directory others can write could be replaced
// under us. A directory that holds only agentty's own files (or nothing)
// is made private; a shared one that -socket named (/tmp, a home) is never
// changed: see sharedDir.
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
	if isPrivate(st) {
		return nil
	}
	own, err := onlyOurs(dir, filepath.Base(socket))
	if err != nil {
		return fmt.Errorf("socket directory %s: %w", dir, err)
	}
	if own {
		if err := makePrivate(dir); err != nil {
			return fmt.Errorf("socket directory %s: %w", dir, err)
		}
		return nil
	}
	return sharedDir(dir, st)
}

// ownDirHint is where a -socket of its own directory could go.
func ownDirHint(dir string) string { return filepath.Join(dir, "agentty", SocketName) }

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
