package nodebackend

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// lookPath finds prog on pathList as the program's own PATH would, relative
// names against dir. It is exec.LookPath with the program's PATH instead of
// the node's.
func lookPath(prog, pathList, dir string) (string, error) {
	if strings.Contains(prog, "/") {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if executable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%s: no such executable", prog)
	}
	for _, d := range filepath.SplitList(pathList) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if p := filepath.Join(d, prog); executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH (%s)", prog, pathList)
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}
