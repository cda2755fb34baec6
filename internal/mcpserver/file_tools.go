package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/files"
	"github.com/agentty/agentty/internal/session"
)

// maxWriteBytes bounds one write_file call (the content travels in one
// JSON message).
const maxWriteBytes = 8 << 20

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
	base, werr := os.Getwd()
	if in.SessionID != "" {
		sh, err := t.shells.Get(in.SessionID)
		if err != nil {
			return WriteFileResult{}, err
		}
		base, werr = sh.Cwd(), nil
	}
	p, err := files.Resolve(base, in.Path)
	if err != nil {
		return WriteFileResult{}, fmt.Errorf("%w: %w", session.ErrBadArgs, err)
	}
	if werr != nil && !filepath.IsAbs(p) {
		return WriteFileResult{}, werr
	}
	// Write targets pass the policy's path check (protected directories
	// such as agentty's configuration, allowed roots).
	if err := t.admitWrite(ctx, req, in.SessionID, p, ""); err != nil {
		return WriteFileResult{}, err
	}
	res, err := files.Write(p, data, files.Options{Append: in.Append, MakeDirs: in.MakeDirs})
	if err != nil {
		return WriteFileResult{}, writeErr(p, err)
	}
	return writeFileResult(res), nil
}

// writeErr words a refused local write for the agent.
func writeErr(p string, err error) error {
	var pe *files.PathError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Err {
	case files.ErrNoDir:
		return fmt.Errorf("%w: directory %s does not exist; pass make_dirs=true to create it", session.ErrBadArgs, pe.Path)
	case files.ErrNotDir:
		return fmt.Errorf("%w: %s is not a directory, so %s cannot be written", session.ErrBadArgs, pe.Path, filepath.Base(p))
	case files.ErrIsDir:
		return fmt.Errorf("%w: %s is a directory", session.ErrBadArgs, pe.Path)
	}
	return err
}

func writeFileResult(r files.Result) WriteFileResult {
	return WriteFileResult{Path: r.Path, Bytes: r.Bytes, Size: r.Size, Appended: r.Appended, Created: r.Created}
}
