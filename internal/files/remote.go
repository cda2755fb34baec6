package files

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentty/agentty/internal/excerpt"
)

// Remote runs short POSIX sh scripts on another host over its SSH
// connection (sshbackend.Pool.Exec).
type Remote interface {
	Exec(ctx context.Context, host string, accept bool, script string, args []string, stdin []byte) ([]byte, error)
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

// WriteRemote writes data to the absolute path p on host through r, as o
// says. A refusal (missing directory, a directory as target) comes back in
// the script's words inside r's error.
func WriteRemote(ctx context.Context, r Remote, host, p string, data []byte, o Options) (Result, error) {
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	out, err := r.Exec(ctx, host, false, remoteWriteScript, []string{p, flag(o.Append), flag(o.MakeDirs)}, data)
	if err != nil {
		return Result{}, fmt.Errorf("write %s on %s: %w", p, host, err)
	}
	res := Result{Path: p, Bytes: len(data), Appended: o.Append}
	created, size, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok {
		return Result{}, fmt.Errorf("write %s on %s: unexpected answer %s", p, host, excerpt.Q(string(out)))
	}
	res.Created = created == "1"
	res.Size, _ = strconv.ParseInt(size, 10, 64)
	return res, nil
}
