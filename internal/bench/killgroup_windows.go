//go:build windows

package bench

import "os"

// killGroup kills p only: Windows has no process groups to signal.
func killGroup(p *os.Process) { _ = p.Kill() }
