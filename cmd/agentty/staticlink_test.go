//go:build linux || k8s_e2e

package main

import "path/filepath"

// staticLink is the agentty-link built beside the static agentty (the
// Docker and Kubernetes tests use it).
func staticLink(exe string) string { return filepath.Join(filepath.Dir(exe), "agentty-link") }
