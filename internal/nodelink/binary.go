package nodelink

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// nodeBinary is the agentty binary copied into targets.
type nodeBinary struct {
	path string // on this machine
	arch string // GOARCH of the binary
	sum  string // first 16 hex digits of its SHA-256
	size int64
}

var (
	binMu    sync.Mutex
	binCache = map[string]nodeBinary{} // guarded by binMu; by path, size and mtime
)

// loadBinary checks that path is a static Linux executable (a node runs in
// a target with its own libraries, maybe none) and names it by checksum.
func loadBinary(path string) (nodeBinary, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nodeBinary{}, fmt.Errorf("node binary: %w", err)
	}
	key := fmt.Sprintf("%s|%d|%d", path, fi.Size(), fi.ModTime().UnixNano())
	binMu.Lock()
	b, ok := binCache[key]
	binMu.Unlock()
	if ok {
		return b, nil
	}
	ef, err := elf.Open(path)
	if err != nil {
		return nodeBinary{}, fmt.Errorf("node binary %s is not a Linux executable: %w", path, err)
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			return nodeBinary{}, fmt.Errorf("node binary %s is dynamically linked, so it cannot run in a container with other libraries: build agentty with CGO_ENABLED=0 (go build -o agentty ./cmd/agentty) and run that, or give agentty serve -node-binary with a static build", path)
		}
	}
	arch := map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64", elf.EM_386: "386",
		elf.EM_ARM: "arm", elf.EM_RISCV: "riscv64", elf.EM_PPC64: "ppc64le", elf.EM_S390: "s390x"}[ef.Machine]
	f, err := os.Open(path)
	if err != nil {
		return nodeBinary{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nodeBinary{}, err
	}
	b = nodeBinary{path: path, arch: arch, sum: hex.EncodeToString(h.Sum(nil))[:16], size: fi.Size()}
	binMu.Lock()
	binCache[key] = b
	binMu.Unlock()
	return b, nil
}

// privateDir is where the binary goes in a target: named by version and
// checksum, so a later start finds it and a different build never runs
// an old copy.
func privateDir(version string, b nodeBinary) string {
	v := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, version)
	return "/tmp/.agentty-" + v + "-" + b.sum
}

// goArch maps an image's architecture to GOARCH ("x86_64" -> "amd64").
func goArch(a string) string {
	switch a {
	case "x86_64":
		return "amd64"
	case "aarch64":
		return "arm64"
	}
	return a
}

// shipped is the binary a node runs from (o.Binary), loaded,
// with the private directory and path it has inside any target.
func shipped(o *Options) (b nodeBinary, dir, exe string, err error) {
	if o.Binary == "" {
		return b, "", "", errors.New("no agentty binary to copy into the target: give agentty-link -binary")
	}
	if b, err = loadBinary(o.Binary); err != nil {
		return b, "", "", err
	}
	dir = privateDir(o.Version, b)
	return b, dir, dir + "/agentty", nil
}
