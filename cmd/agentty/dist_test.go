package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The release artifacts scripts/dist writes (docs/release.md). The tests
// read $AGENTTY_DIST (scripts/test runs scripts/dist into dist/ on whole
// runs and sets it); without it they run scripts/dist for this platform
// alone into a temporary directory, once per test binary.

var (
	distOnce sync.Once
	distPath string
	distErr  string
)

// distDir is the directory of the release artifacts, built if need be.
func distDir(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("the artifacts are run here only on linux, not %s", runtime.GOOS)
	}
	distOnce.Do(func() {
		if d := os.Getenv("AGENTTY_DIST"); d != "" {
			distPath, _ = filepath.Abs(d)
			return
		}
		dir, err := os.MkdirTemp("", "agentty-dist-")
		if err != nil {
			distErr = err.Error()
			return
		}
		atExit(func() { os.RemoveAll(dir) })
		cmd := exec.Command("../../scripts/dist", runtime.GOOS+"/"+runtime.GOARCH)
		cmd.Env = append(os.Environ(), "AGENTTY_DIST="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			distErr = "scripts/dist: " + err.Error() + "\n" + string(out)
			return
		}
		distPath = dir
	})
	if distErr != "" {
		if strings.Contains(distErr, "mcpb not found") {
			t.Skip(distErr) // scripts/test installs it
		}
		t.Fatal(distErr)
	}
	return distPath
}

// distServer is the parts of dist/server.json the tests read.
type distServer struct {
	Version  string `json:"version"`
	Packages []struct {
		RegistryType string `json:"registryType"`
		Identifier   string `json:"identifier"`
		Version      string `json:"version"`
		FileSHA256   string `json:"fileSha256"`
	} `json:"packages"`
}

func readDistServer(t *testing.T, dist string) distServer {
	t.Helper()
	var s distServer
	b, err := os.ReadFile(filepath.Join(dist, "server.json"))
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil || s.Version == "" {
		t.Fatalf("server.json: %v (version %q)", err, s.Version)
	}
	return s
}

// readChecksums parses checksums.txt: file name → SHA-256.
func readChecksums(t *testing.T, dist string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("checksums.txt line %q: want sha256sum's format", sc.Text())
		}
		sums[name] = sum
	}
	return sums
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hostArtifact is the name of this platform's artifact with suffix ext.
func hostArtifact(version, ext string) string {
	return "agentty_" + version + "_" + runtime.GOOS + "_" + runtime.GOARCH + ext
}

// wantVersionLine matches what a release binary of version prints.
func wantVersionLine(version string) *regexp.Regexp {
	return regexp.MustCompile(`^agentty ` + regexp.QuoteMeta(version) +
		` \(commit [0-9a-f]{40}(-dirty)?, built \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\) ` +
		runtime.GOOS + "/" + runtime.GOARCH + "\n$")
}

// TestDist_Artifacts checks what a person downloads: every artifact is in
// checksums.txt with its true SHA-256, and this platform's archive holds
// exactly agentty and agentty-link (static, stripped, executable, stamped)
// with the license and README.
func TestDist_Artifacts(t *testing.T) {
	dist := distDir(t)
	s := readDistServer(t, dist)
	sums := readChecksums(t, dist)

	t.Run("checksums", func(t *testing.T) {
		var files []string
		for _, pat := range []string{"*.tar.gz", "*.zip", "*.mcpb", "npm/*.tgz"} {
			m, _ := filepath.Glob(filepath.Join(dist, pat))
			for _, f := range m {
				rel, _ := filepath.Rel(dist, f)
				files = append(files, rel)
			}
		}
		slices.Sort(files)
		listed := slices.Sorted(maps.Keys(sums))
		if !slices.Equal(files, listed) {
			t.Fatalf("checksums.txt lists %v, dist holds %v", listed, files)
		}
		for _, name := range files {
			if got := fileSHA256(t, filepath.Join(dist, name)); got != sums[name] {
				t.Errorf("%s: sha256 %s, checksums.txt says %s", name, got, sums[name])
			}
			fi, _ := os.Stat(filepath.Join(dist, name))
			t.Logf("%10d  %s", fi.Size(), name)
		}
	})

	// The check docs/release.md tells a user to run, run as written.
	t.Run("release.md check", func(t *testing.T) {
		b, err := os.ReadFile("../../docs/release.md")
		if err != nil {
			t.Fatal(err)
		}
		_, line, ok := strings.Cut(string(b), "\nsha256sum ")
		if !ok {
			t.Fatal("docs/release.md shows no sha256sum line")
		}
		line, _, _ = strings.Cut("sha256sum "+line, "\n")
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir = dist
		out, err := cmd.CombinedOutput()
		if n := strings.Count(string(out), ": OK\n"); err != nil || n != len(sums) {
			t.Errorf("%s: %v, %d files OK of %d:\n%s", line, err, n, len(sums), out)
		}
	})

	t.Run("archive", func(t *testing.T) {
		dir := t.TempDir()
		names := untarGz(t, filepath.Join(dist, hostArtifact(s.Version, ".tar.gz")), dir)
		if want := []string{"agentty", "agentty-link", "LICENSE", "README.md"}; !slices.Equal(names, want) {
			t.Fatalf("archive holds %v, want %v", names, want)
		}
		for _, prog := range []string{"agentty", "agentty-link"} {
			p := filepath.Join(dir, prog)
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o755 {
				t.Errorf("%s mode %v, want 0755", prog, fi.Mode())
			}
			f, err := elf.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, ph := range f.Progs {
				if ph.Type == elf.PT_INTERP || ph.Type == elf.PT_DYNAMIC {
					t.Errorf("%s is dynamically linked (%v): releases are CGO_ENABLED=0", prog, ph.Type)
				}
			}
			if f.Section(".symtab") != nil {
				t.Errorf("%s has a symbol table: releases are stripped (-s -w)", prog)
			}
			f.Close()
		}
		out, err := exec.Command(filepath.Join(dir, "agentty"), "version").Output()
		if err != nil || !wantVersionLine(s.Version).Match(out) {
			t.Errorf("agentty version: %q (%v), want it to match %s", out, err, wantVersionLine(s.Version))
		}
	})
}

// untarGz extracts a .tar.gz into dir and returns its entries in order.
func untarGz(t *testing.T, path, dir string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg || strings.Contains(h.Name, "/") {
			t.Fatalf("entry %q (type %c): want plain files at the top", h.Name, h.Typeflag)
		}
		names = append(names, h.Name)
		w, err := os.OpenFile(filepath.Join(dir, h.Name), os.O_CREATE|os.O_WRONLY|os.O_EXCL, os.FileMode(h.Mode).Perm())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, tr); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
}
