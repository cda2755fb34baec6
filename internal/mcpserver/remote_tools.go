package mcpserver

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/session"
)

// RemoteHosts runs things on other hosts over SSH (sshbackend.Pool): Start
// runs a program on a channel (run_command with host), Exec a short POSIX
// sh script with stdin (remote shells' integration files, write_file into
// a remote shell's directory).
type RemoteHosts interface {
	Start(spec backend.RemoteSpec, sink backend.Sink) (backend.Process, error)
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

// remoteWriteScript writes stdin to $1 on the remote: appended ($2 = 1) or
// replaced atomically through a temporary file in the same directory and
// mv (an existing file's permission bits are kept by copying it first;
// a symlink's target is replaced). $3 = 1 creates missing parents. It
// prints "CREATED SIZE".
const remoteWriteScript = `p=$1
[ "$3" = 1 ] && { mkdir -p -- "$(dirname -- "$p")" || exit 1; }
d=$(dirname -- "$p"); [ -d "$d" ] || { echo "directory $d does not exist; pass make_dirs=true to create it" >&2; exit 2; }
[ -d "$p" ] && { echo "$p is a directory" >&2; exit 2; }
created=0; [ -e "$p" ] || created=1
if [ "$2" = 1 ]; then
	cat >> "$p" || exit 1
else
	t=$(readlink -f -- "$p" 2>/dev/null) && [ -n "$t" ] || t=$p
	tmp=$(mktemp "$(dirname -- "$t")/.agentty-XXXXXX") || exit 1
	trap 'rm -f -- "$tmp"' EXIT
	if [ -e "$t" ]; then cp -p -- "$t" "$tmp" || exit 1; else chmod 644 "$tmp" || exit 1; fi
	cat > "$tmp" && mv -f -- "$tmp" "$t" || exit 1
	trap - EXIT
	p=$t
fi
printf '%s %s\n' "$created" "$(wc -c < "$p" | tr -d ' ')"`

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
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	out, err := t.remote.Exec(ctx, host, false, remoteWriteScript, []string{p, flag(in.Append), flag(in.MakeDirs)}, data)
	if err != nil {
		return WriteFileResult{}, fmt.Errorf("write %s on %s: %w", p, host, err)
	}
	res := WriteFileResult{Path: p, Bytes: len(data), Appended: in.Append}
	created, size, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok {
		return WriteFileResult{}, fmt.Errorf("write %s on %s: unexpected answer %s", p, host, excerpt.Q(string(out)))
	}
	res.Created = created == "1"
	res.Size, _ = strconv.ParseInt(size, 10, 64)
	return res, nil
}
