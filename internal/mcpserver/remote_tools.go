package mcpserver

import (
	"context"
	"fmt"
	"path"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/files"
	"github.com/agentty/agentty/internal/session"
)

// RemoteHosts runs things on other hosts over SSH (sshbackend.Pool): Exec
// runs a short POSIX sh script with stdin, for remote shells' integration
// files (shell.Remote) and write_file into a remote shell's directory
// (files.Remote). run_command with host also needs the pool's Start (see
// newRunner).
type RemoteHosts interface {
	Exec(ctx context.Context, host string, accept bool, script string, args []string, stdin []byte) ([]byte, error)
}

// admitRemoteShell passes a remote shell program through the policy: the
// program name is checked as given (it is looked up on the remote), with
// the host named in refusals.
func (t *tools) admitRemoteShell(ctx context.Context, req *mcp.CallToolRequest, in OpenShellInput) error {
	name := in.Shell
	if name == "" {
		name = "sh" // the remote login shell, bash or sh: checked as a shell
	}
	return t.admitShell(ctx, req, name, in)
}

// writeRemoteFile is write_file for a remote shell session: the path is
// resolved against the shell's current directory on the remote, and the
// write happens there.
func (t *tools) writeRemoteFile(ctx context.Context, req *mcp.CallToolRequest, in WriteFileInput, host, cwd string, data []byte) (WriteFileResult, error) {
	if t.remote == nil {
		return WriteFileResult{}, fmt.Errorf("%w: remote hosts are not enabled in this server", session.ErrBadArgs)
	}
	p := in.Path
	if !path.IsAbs(p) {
		if cwd == "" {
			return WriteFileResult{}, fmt.Errorf("%w: the remote shell has not reported its directory yet; give an absolute path", session.ErrBadArgs)
		}
		p = path.Join(cwd, p)
	}
	if err := t.admitWrite(ctx, req, in.SessionID, p, host); err != nil {
		return WriteFileResult{}, err
	}
	res, err := files.WriteRemote(ctx, t.remote, host, p, data, files.Options{Append: in.Append, MakeDirs: in.MakeDirs})
	if err != nil {
		return WriteFileResult{}, err
	}
	return writeFileResult(res), nil
}
