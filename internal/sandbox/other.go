//go:build !linux

package sandbox

import (
	"os/exec"
	"runtime"

	"github.com/agentty/agentty/internal/contain"
)

// Detect reports nothing outside Linux: no Landlock, namespaces or rlimits.
func Detect(s *contain.Support) {
	if runtime.GOOS == "darwin" {
		s.LandlockNote, s.NetNSNote = "macOS has no Landlock", "macOS has no network namespaces"
		return
	}
	s.LandlockNote = "Landlock is Linux only"
	s.NetNSNote = "network namespaces are Linux only"
}

// Launch is unavailable outside Linux.
type Launch struct{}

// Prepare refuses: sandboxes are Linux only.
func Prepare(*exec.Cmd, contain.Profile) (*Launch, error) {
	why := "Linux only"
	if runtime.GOOS == "darwin" {
		why = "macOS has no cgroups, Landlock or network namespaces"
	}
	return nil, &contain.UnavailableError{Feature: "sandbox", Reason: why}
}

func (l *Launch) Started(err error) error { return err }
func (l *Launch) Abort()                  {}

// Main is never reached outside Linux.
func Main() int { return 127 }
