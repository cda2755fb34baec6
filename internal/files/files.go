// Package files writes files for agents (write_file) on this machine or
// on another host through its SSH connection, with one meaning for both:
// append, or replace atomically (readers see the old or the new content,
// never a half-written file), following a symlink to its target and
// keeping an existing file's permission bits; missing parent directories
// are created only when asked.
//
// Callers resolve relative paths and decide whether a path may be written
// (policy) before calling; this package only writes.
package files

import "errors"

// Options shape one write.
type Options struct {
	Append   bool // append instead of replacing
	MakeDirs bool // create missing parent directories
}

// Result is what a write did.
type Result struct {
	Path     string // the path written, as given
	Bytes    int    // bytes written by this call
	Size     int64  // the file's size afterwards
	Appended bool
	Created  bool // the file did not exist before
}

// Why a path cannot be written; a *PathError carries one with its path.
var (
	ErrNoDir  = errors.New("directory does not exist") // and Options.MakeDirs is off
	ErrNotDir = errors.New("not a directory")          // the parent is a file
	ErrIsDir  = errors.New("is a directory")           // the target itself
)

// PathError says which path a write refused and why: Err is ErrNoDir or
// ErrNotDir with the parent directory's path, or ErrIsDir with the target's
// (a symlink resolved).
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }
