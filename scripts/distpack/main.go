// Command distpack lays out agentty's release artifacts from binaries
// already built, for scripts/dist (which builds them, packs the npm
// tarballs and bundles with npm and mcpb, and calls this in between):
//
//	distpack layout -bin DIR -work DIR -out DIR -version V -date T TARGET...
//	    archives into -out; npm package and bundle directories into -work
//	distpack registry -out DIR -version V TARGET...
//	    checksums.txt over -out's artifacts, then server.json with the
//	    bundles' SHA-256
//
// A TARGET is GOOS/GOARCH. Archive entries come in a fixed order with the
// commit's time, not the build's, so the same binaries give the same bytes.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

// Names under which agentty is published. mcpName is its MCP Registry
// name (reverse DNS of the GitHub repository); npm checks that the main
// package's "mcpName" field matches it before the registry accepts it.
const (
	repoURL     = "https://github.com/agentty/agentty"
	mcpName     = "io.github.agentty/agentty"
	npmMain     = "agentty"
	npmScope    = "@agentty"
	license     = "MIT"
	description = "Real terminals for AI agents: run, type into, read and stop interactive programs"
)

// target is one platform agentty ships for.
type target struct{ goos, goarch string }

func (t target) String() string { return t.goos + "/" + t.goarch }

// exe is the file name of a program on this target.
func (t target) exe(name string) string {
	if t.goos == "windows" {
		return name + ".exe"
	}
	return name
}

// archive is the release archive's file name: zip on Windows, where
// Explorer opens it, tar.gz elsewhere, where tar keeps the modes.
func (t target) archive(version string) string {
	ext := ".tar.gz"
	if t.goos == "windows" {
		ext = ".zip"
	}
	return "agentty_" + version + "_" + t.goos + "_" + t.goarch + ext
}

// bundle is the MCP bundle's file name.
func (t target) bundle(version string) string {
	return "agentty_" + version + "_" + t.goos + "_" + t.goarch + ".mcpb"
}

// node names the platform as Node does (process.platform, process.arch):
// npm's os and cpu fields and the launcher use these.
func (t target) node() (platform, arch string) {
	platform, arch = t.goos, t.goarch
	if platform == "windows" {
		platform = "win32"
	}
	if arch == "amd64" {
		arch = "x64"
	}
	return platform, arch
}

// npmName is the platform package's name, e.g. @agentty/linux-x64.
func (t target) npmName() string {
	p, a := t.node()
	return npmScope + "/" + p + "-" + a
}

func parseTargets(args []string) ([]target, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no targets given (GOOS/GOARCH ...)")
	}
	var ts []target
	for _, a := range args {
		goos, goarch, ok := strings.Cut(a, "/")
		if !ok || goos == "" || goarch == "" {
			return nil, fmt.Errorf("target %q: want GOOS/GOARCH", a)
		}
		ts = append(ts, target{goos, goarch})
	}
	return ts, nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: distpack layout|registry [flags] GOOS/GOARCH...")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("distpack "+os.Args[1], flag.ExitOnError)
	bin := fs.String("bin", "", "directory of built binaries, one GOOS_GOARCH directory per target")
	work := fs.String("work", "", "directory for the npm package and bundle directories")
	out := fs.String("out", "dist", "directory of the artifacts")
	version := fs.String("version", "", "the release's version (semver, no v)")
	date := fs.String("date", "", "the commit's time (RFC 3339): every file's time in the archives")
	_ = fs.Parse(os.Args[2:])
	ts, err := parseTargets(fs.Args())
	if err == nil && *version == "" {
		err = fmt.Errorf("-version is required")
	}
	if err == nil {
		switch os.Args[1] {
		case "layout":
			var mtime time.Time
			if mtime, err = time.Parse(time.RFC3339, *date); err == nil {
				err = layout(ts, *bin, *work, *out, *version, mtime)
			}
		case "registry":
			err = registry(ts, *out, *version)
		default:
			err = fmt.Errorf("unknown command %q", os.Args[1])
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "distpack:", err)
		os.Exit(1)
	}
}
