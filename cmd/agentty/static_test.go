package main

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	staticOnce sync.Once
	staticExe  string // agentty; agentty-link is beside it, as installed
	staticErr  error
)

// staticBinary builds agentty and agentty-link as README installs them
// (CGO_ENABLED=0, one directory), once per test binary, and returns
// agentty's path: the node binary the container tests copy in, and the
// build the static tests run. staticLink is the link's path.
func staticBinary(t testing.TB) string {
	t.Helper()
	exe, err := buildStatic()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// buildStatic is staticBinary for setups without a testing.TB.
func buildStatic() (string, error) {
	staticOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentty-static-")
		if err != nil {
			staticErr = err
			return
		}
		atExit(func() { os.RemoveAll(dir) })
		exe := filepath.Join(dir, "agentty")
		build := exec.Command("go", "build", "-o", dir+"/", ".", "../agentty-link")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			staticErr = fmt.Errorf("static build: %v: %s", err, out)
			return
		}
		f, err := elf.Open(exe)
		if err != nil {
			staticErr = err
			return
		}
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				staticErr = fmt.Errorf("CGO_ENABLED=0 build of %s names an interpreter: it is not static", exe)
				return
			}
		}
		staticExe = exe
	})
	return staticExe, staticErr
}
