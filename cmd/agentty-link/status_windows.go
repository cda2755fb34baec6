//go:build windows

package main

import (
	"errors"
	"fmt"
	"os"
)

// statusPipe refuses: Windows passes no fd 3, and agentty serve does not
// hand the link its status pipe there yet, so docker:// and k8s:// hosts
// are not available on Windows.
func statusPipe() (*os.File, error) {
	return nil, fmt.Errorf("docker:// and k8s:// hosts are not available on Windows yet: agentty-link cannot receive its status pipe there: %w", errors.ErrUnsupported)
}
