//go:build !linux

package stdio

import (
	"io"
	"os"
)

// stdin is standard input for the read loop.
func stdin() io.ReadCloser { return os.Stdin }
