//go:build windows

package main

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// statusPipe is the inherited pipe handle agentty serve names with
// -status-handle (Windows passes no fd 3); anything else is not one to
// write records into.
func statusPipe(handle uint64) (*os.File, error) {
	h := windows.Handle(handle)
	if handle == 0 {
		return nil, errors.New("no -status-handle: agentty serve starts this program with its status pipe's handle; it is not meant to be run by hand")
	}
	if t, err := windows.GetFileType(h); err != nil || t != windows.FILE_TYPE_PIPE {
		return nil, errors.New("-status-handle is not an open pipe: agentty serve starts this program with its status pipe's handle; it is not meant to be run by hand")
	}
	return os.NewFile(uintptr(h), "status"), nil
}
