package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/session"
)

// maxWriteBytes bounds one write_file call (the content travels in one
// JSON message).
const maxWriteBytes = 8 << 20

// WriteFileInput are write_file's arguments.
type WriteFileInput struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"shell session whose current directory a relative path is resolved against (default: the server's directory)"`
	Path      string `json:"path" jsonschema:"file path, relative or absolute"`
	Content   string `json:"content" jsonschema:"what to write"`
	Encoding  string `json:"encoding,omitempty" jsonschema:"utf-8 (default: content is the text) or base64 (content is base64 of the bytes)"`
	Append    bool   `json:"append,omitempty" jsonschema:"append instead of replacing"`
	MakeDirs  bool   `json:"make_dirs,omitempty" jsonschema:"create missing parent directories"`
}

// WriteFileResult is write_file's result.
type WriteFileResult struct {
	Path     string `json:"path" jsonschema:"absolute path written"`
	Bytes    int    `json:"bytes" jsonschema:"bytes written by this call"`
	Size     int64  `json:"size" jsonschema:"file size afterwards"`
	Appended bool   `json:"appended"`
	Created  bool   `json:"created"`
}

// Text implements texter.
func (r WriteFileResult) Text() string {
	verb := "wrote"
	if r.Appended {
		verb = "appended"
	}
	return fmt.Sprintf("%s %d bytes to %s (size %d)", verb, r.Bytes, r.Path, r.Size)
}

func (t *tools) writeFile(ctx context.Context, req *mcp.CallToolRequest, in WriteFileInput) (WriteFileResult, error) {
	if in.Path == "" {
		return WriteFileResult{}, fmt.Errorf("%w: path is required", session.ErrBadArgs)
	}
	var data []byte
	switch in.Encoding {
	case "", "utf-8", "utf8":
		data = []byte(in.Content)
	case "base64":
		b, err := base64.StdEncoding.DecodeString(in.Content)
		if err != nil {
			return WriteFileResult{}, fmt.Errorf("%w: content is not valid base64: %v", session.ErrBadArgs, err)
		}
		data = b
	default:
		return WriteFileResult{}, fmt.Errorf("%w: encoding must be utf-8 or base64, not %s", session.ErrBadArgs, excerpt.Q(in.Encoding))
	}
	if len(data) > maxWriteBytes {
		return WriteFileResult{}, fmt.Errorf("%w: content is %d bytes; write at most %d per call (use append for more)", session.ErrBadArgs, len(data), maxWriteBytes)
	}
	if in.SessionID != "" {
		sh, err := t.shells.Get(in.SessionID)
		if err != nil {
			return WriteFileResult{}, err
		}
		if h := sh.Host(); h != "" {
			return t.writeRemoteFile(ctx, req, in, h, sh.Cwd(), data)
		}
	}
	p := in.Path
	if !filepath.IsAbs(p) {
		base, err := os.Getwd()
		if err != nil {
			return WriteFileResult{}, err
		}
		if in.SessionID != "" {
			sh, err := t.shells.Get(in.SessionID)
			if err != nil {
				return WriteFileResult{}, err
			}
			base = sh.Cwd()
		}
		p = filepath.Join(base, p)
	}
	// Write targets pass the policy's path check (protected directories
	// such as agentty's configuration, allowed roots).
	if err := t.admitWrite(ctx, req, in.SessionID, p, ""); err != nil {
		return WriteFileResult{}, err
	}
	if in.MakeDirs {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return WriteFileResult{}, fmt.Errorf("create parent directories: %w", err)
		}
	} else if err := parentExists(p); err != nil {
		return WriteFileResult{}, err
	}
	res := WriteFileResult{Path: p, Bytes: len(data), Appended: in.Append}
	_, statErr := os.Stat(p)
	res.Created = errors.Is(statErr, fs.ErrNotExist)
	var err error
	if in.Append {
		err = appendFile(p, data)
	} else {
		err = replaceFile(p, data)
	}
	if err != nil {
		return WriteFileResult{}, err
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
		return fmt.Errorf("%w: directory %s does not exist; pass make_dirs=true to create it", session.ErrBadArgs, dir)
	case err != nil:
		return fmt.Errorf("write %s: %w", p, err)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory, so %s cannot be written", session.ErrBadArgs, dir, filepath.Base(p))
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
			return fmt.Errorf("%w: %s is a directory", session.ErrBadArgs, p)
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
