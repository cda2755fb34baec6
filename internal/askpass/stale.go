package askpass

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// dirPrefix names every askpass server's directory in the temporary
// directory.
const dirPrefix = "agentty-askpass-"

// makingAge is how long a directory may lack its socket: a server makes
// the directory, then the script, then listens, within milliseconds.
const makingAge = time.Minute

// removeStale removes the directories that servers of this user left in
// tmp when they died without closing (a SIGKILL, a crash): those whose
// socket refuses connections, or that have had no socket for makingAge.
// A socket that answers, or fails otherwise, is a live server's. It
// returns how many it removed.
func removeStale(tmp string, log *slog.Logger) int {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), dirPrefix) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		fi, err := os.Lstat(dir)
		if err != nil {
			continue
		}
		if !ownedByMe(fi) {
			continue // another user's server (root sees them all)
		}
		if !stale(dir, fi.ModTime()) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			log.Debug("askpass: cannot remove a dead server's directory", "dir", dir, "err", err)
			continue
		}
		n++
	}
	if n > 0 {
		log.Info("askpass: removed the directories of servers that died without closing", "count", n)
	}
	return n
}

// stale reports whether the server that made dir is gone.
func stale(dir string, made time.Time) bool {
	sock := filepath.Join(dir, "socket")
	if _, err := os.Lstat(sock); errors.Is(err, os.ErrNotExist) {
		return time.Since(made) > makingAge
	}
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}
