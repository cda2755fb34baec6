package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to the absolute path p on this machine as o says.
func Write(p string, data []byte, o Options) (Result, error) {
	if o.MakeDirs {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return Result{}, fmt.Errorf("create parent directories: %w", err)
		}
	} else if err := parentExists(p); err != nil {
		return Result{}, err
	}
	res := Result{Path: p, Bytes: len(data), Appended: o.Append}
	_, statErr := os.Stat(p)
	res.Created = errors.Is(statErr, fs.ErrNotExist)
	var err error
	if o.Append {
		err = appendFile(p, data)
	} else {
		err = replaceFile(p, data)
	}
	if err != nil {
		return Result{}, err
	}
	if fi, err := os.Stat(p); err == nil {
		res.Size = fi.Size()
	}
	return res, nil
}

// parentExists says that p's directory is missing, rather than letting the
// write fail on the name of a temporary file the agent never gave.
func parentExists(p string) error {
	dir := filepath.Dir(p)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &PathError{Path: dir, Err: ErrNoDir}
	case err != nil:
		return fmt.Errorf("write %s: %w", p, err)
	case !fi.IsDir():
		return &PathError{Path: dir, Err: ErrNotDir}
	}
	return nil
}

func appendFile(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", p, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: %w", p, err)
	}
	return f.Close()
}

// replaceFile writes data to a temporary file next to p and renames it over
// p, so readers see the old or the new content, never a half-written file.
// A symlink is followed (its target is replaced); an existing file keeps its
// permission bits.
func replaceFile(p string, data []byte) error {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(p); err == nil {
		if fi.IsDir() {
			return &PathError{Path: p, Err: ErrIsDir}
		}
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".agentty-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	done := false
	defer func() {
		if !done {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("replace %s: %w", p, err)
	}
	done = true
	return nil
}
