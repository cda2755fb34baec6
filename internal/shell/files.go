package shell

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"time"
)

// Remote runs short POSIX sh scripts on another host over the host's SSH
// connection (sshbackend.Pool.Exec); remote shells keep their integration
// files there through it.
type Remote interface {
	Exec(ctx context.Context, host string, accept bool, script string, args []string, stdin []byte) ([]byte, error)
}

// files is where a shell's integration files live: the rc files (for its
// startup) and one file per command. They exist on the machine the shell
// runs on, only as long as the shell needs them.
type files interface {
	// mkdir makes a new private directory under the temporary directory.
	mkdir(ctx context.Context) (string, error)
	// create writes a new private (0600) file and returns its path; it
	// fails if p exists. p == "" makes a new command file.
	create(ctx context.Context, p string, body []byte) (string, error)
	// remove deletes paths (directories recursively), best effort.
	remove(paths ...string)
}

// localFiles keeps them in the server's temporary directory.
type localFiles struct{}

func (localFiles) mkdir(context.Context) (string, error) {
	d, err := os.MkdirTemp("", "agentty-shell-")
	if err != nil {
		return "", fmt.Errorf("shell: startup directory: %w", err)
	}
	return d, nil
}

// create with p == "" makes a new temporary command file.
func (localFiles) create(_ context.Context, p string, body []byte) (string, error) {
	var f *os.File
	var err error
	if p == "" {
		f, err = os.CreateTemp("", "agentty-cmd-*")
	} else {
		f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	}
	if err != nil {
		return "", fmt.Errorf("shell: integration file: %w", err)
	}
	_, err = f.Write(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("shell: integration file: %w", err)
	}
	return f.Name(), nil
}

func (localFiles) remove(paths ...string) {
	for _, p := range paths {
		_ = os.RemoveAll(p)
	}
}

// remoteFiles keeps them in /tmp of the remote host, written through a
// channel of the host's SSH connection (umask 077, noclobber: private and
// never an existing file). Names are random, made here.
type remoteFiles struct {
	r      Remote
	host   string
	accept bool
}

// remoteTmp is where remote integration files go; /tmp exists on every
// POSIX host, while the remote's TMPDIR is unknown before the shell runs.
const remoteTmp = "/tmp"

func randomName(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return path.Join(remoteTmp, prefix+hex.EncodeToString(b))
}

func (f remoteFiles) mkdir(ctx context.Context) (string, error) {
	d := randomName("agentty-shell-")
	if _, err := f.r.Exec(ctx, f.host, f.accept, `umask 077 && mkdir -- "$1"`, []string{d}, nil); err != nil {
		return "", fmt.Errorf("shell: startup directory on %s: %w", f.host, err)
	}
	return d, nil
}

// createScript creates $1 exclusively (noclobber; a special builtin's
// failed redirection ends the script), private by umask, then fills it
// from stdin, removing it again if that fails (a full disk).
const createScript = `umask 077 && set -C && : > "$1" && set +C && { cat >> "$1" || { rm -f -- "$1"; exit 1; }; }`

func (f remoteFiles) create(ctx context.Context, p string, body []byte) (string, error) {
	if p == "" {
		p = randomName("agentty-cmd-")
	}
	if _, err := f.r.Exec(ctx, f.host, f.accept, createScript, []string{p}, body); err != nil {
		if ctx.Err() != nil {
			f.remove(p) // cut short after it may have been created
		}
		return "", fmt.Errorf("shell: integration file on %s: %w", f.host, err)
	}
	return p, nil
}

// remoteCleanup bounds a removal, which also runs when the caller's
// context is gone (a shell that failed to start).
const remoteCleanup = 10 * time.Second

func (f remoteFiles) remove(paths ...string) {
	if len(paths) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteCleanup)
	defer cancel()
	_, _ = f.r.Exec(ctx, f.host, f.accept, `rm -rf -- "$@"`, paths, nil)
}

// dropLocal removes a started or finished command's file when it is local
// (cheap, so done under mu); a remote shell removed its own. The Windows
// shells' files go once the command has finished: cmd.exe reads a batch
// file line by line as it runs it (its D mark is on the wrapper's last
// line), and PowerShell's C mark comes before it reads its file.
func (sh *Shell) dropLocal(r *job) {
	windows := sh.Kind == Cmd || sh.Kind == PowerShell
	if _, ok := sh.fs.(localFiles); !ok || r.file == "" || (windows && !r.done()) {
		return
	}
	_ = os.Remove(r.file)
	if r.body != "" {
		_ = os.Remove(r.body)
	}
}

// removeFile removes the file of a command whose shell exited: always
// when local; on a remote only if the shell never started the command
// (else it removed the file itself), since that costs a round trip.
func (sh *Shell) removeFile(r *job) {
	if _, ok := sh.fs.(localFiles); ok || r.outStart < 0 {
		if r.file != "" {
			sh.fs.remove(r.file)
		}
		if r.body != "" {
			sh.fs.remove(r.body)
		}
	}
}

// Host is the host argument a remote shell was opened with ("" for a
// local shell); write_file reaches the shell's machine with it.
func (sh *Shell) Host() string {
	if f, ok := sh.fs.(remoteFiles); ok {
		return f.host
	}
	return ""
}
