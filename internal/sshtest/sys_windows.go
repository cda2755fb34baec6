//go:build windows

package sshtest

import (
	"errors"
	"os"
	"syscall"
)

// supported: Require skips on Windows (no Debian sshd, no useradd).
const supported = false

func lockWait(*os.File) error { return errors.ErrUnsupported }

func ownerUID(string) (int, bool) { return 0, false }

func sshdAttr() *syscall.SysProcAttr { return nil }
