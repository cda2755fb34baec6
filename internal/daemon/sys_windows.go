//go:build windows

package daemon

import (
	"net"
	"os"
	"syscall"
)

// supported: no daemon on Windows yet (its socket's DACL, lock and
// detached spawn are not written); Listen, Claim and Spawn say so.
const supported = false

func lockFile(*os.File) error { return ErrUnsupported }

func listenPrivate(string) (*net.UnixListener, error) { return nil, ErrUnsupported }

func checkOwner(string, os.FileInfo) error { return ErrUnsupported }

func detached() *syscall.SysProcAttr { return nil }
