package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set by release builds (scripts/dist) with
// -ldflags "-X main.version=... -X main.commit=... -X main.date=...".
// A build from a clone leaves commit and date empty, and versionLine takes
// them from the Go toolchain's VCS stamp instead.
var (
	version = "0.1.0-dev"
	commit  = ""
	date    = ""
)

// versionLine is what "agentty version" prints: the version, the commit
// and build date it came from, and the platform it was built for, so a bug
// report names exactly which binary it is about.
func versionLine() string {
	c, d := commit, date
	if c == "" || d == "" {
		vc, vd := vcsStamp()
		if c == "" {
			c = vc
		}
		if d == "" {
			d = vd
		}
	}
	return fmt.Sprintf("agentty %s (commit %s, built %s) %s/%s", version, c, d, runtime.GOOS, runtime.GOARCH)
}

// vcsStamp is the commit and its time as go build recorded them, "unknown"
// where it recorded none (go run, a build outside a git checkout).
func vcsStamp() (rev, at string) {
	rev, at = "unknown", "unknown"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return rev, at
	}
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified && rev != "unknown" {
		rev += "-dirty"
	}
	return rev, at
}
