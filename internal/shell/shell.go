package shell

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/session"
)

// Errors for errors.Is.
var (
	// ErrBusy: a command is still running in the shell.
	ErrBusy = errors.New("shell is busy")
	// ErrShellExited: the shell process is gone.
	ErrShellExited = errors.New("shell has exited")
	// ErrNotShell: the session was not opened as a shell (Open).
	ErrNotShell = errors.New("not a shell session")
	// ErrNoCommand: nothing was started with Exec.
	ErrNoCommand = errors.New("no command to wait for")
	// ErrNotReady: the shell did not reach its first prompt in time.
	ErrNotReady = errors.New("shell not ready")
)

// OpenOptions describe a shell to open; the zero value opens the user's
// shell ($SHELL, else bash, else sh) in the server's directory.
type OpenOptions struct {
	Shell string // "", bash, zsh, sh, or a path
	Cwd   string
	Env   map[string]string
	Rows  int
	Cols  int
	Name  string
	NoRC  bool          // skip the user's rc files (~/.bashrc, ~/.zshrc, $ENV)
	Wait  time.Duration // how long to wait for the first prompt; 0 means 10 s
	// Host opens the shell on another machine over SSH (user@host[:port]
	// or an ssh config alias) on a remote PTY; "" opens it here. Shell,
	// Cwd and Env are then the remote's. Remote writes the integration
	// files there and must be set with Host.
	Host             string
	AcceptNewHostKey bool
	Remote           Remote
	// Base is the environment a local shell begins from (nil: agentty's
	// own); its SHELL and PATH pick the shell.
	Base map[string]string
}

// ErrNoRemote: a host was asked for but remote hosts are off.
var ErrNoRemote = errors.New("remote hosts are not enabled in this server")

// nonInteractive are defaults that keep commands from stopping for a pager
// or a credential prompt; the caller's env overrides them.
var nonInteractive = map[string]string{"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}

// Shell is a shell session with the integration loaded.
type Shell struct {
	Kind Kind
	Path string
	sess *session.Session
	re   *regexp.Regexp
	// nonce is in every mark of this shell's (see markRE).
	nonce string
	// fs holds the integration files on the machine the shell runs on.
	fs files
	// startDir held the rc files; Open removes it before returning.
	startDir string

	mu      sync.Mutex
	scanned int64  // guarded by mu; raw output up to here was searched for marks
	cwd     string // guarded by mu; from the newest D mark
	ready   bool   // guarded by mu; the first prompt was seen
	nextID  int    // guarded by mu
	run     *job   // guarded by mu; the newest command, nil before the first
	// firstPrompt is where the first prompt's D mark starts (guarded by mu):
	// output before it is the shell's banner.
	firstPrompt int64
}

// job is one exec_command in flight or finished.
type job struct {
	id       int
	text     string
	file     string
	body     string // cmd.exe: the command's own file, which file runs
	started  time.Time
	outStart int64 // after the C mark; -1 until it is seen
	outEnd   int64 // at the D mark; -1 while running
	returned int64 // output up to here was handed to the agent
	status   int
	ended    time.Time
}

func (c *job) done() bool { return c.outEnd >= 0 }

// Open starts a shell as a PTY session of mgr, waits for its first prompt and
// returns it with the output printed before that prompt (an rc file's
// banner, say).
func Open(ctx context.Context, mgr *session.Manager, o OpenOptions) (*Shell, string, error) {
	var fs files = localFiles{}
	kind, path, err := Kind(""), "", error(nil)
	if o.Host != "" {
		if o.Remote == nil {
			return nil, "", fmt.Errorf("%w: host %s needs the SSH backend", ErrNoRemote, excerpt.Q(o.Host))
		}
		rf := remoteFiles{r: o.Remote, host: o.Host, accept: o.AcceptNewHostKey}
		fs = rf
		kind, path, err = detectRemote(ctx, rf, o.Shell)
	} else {
		kind, path, err = Detect(o.Shell, o.Base)
	}
	if err != nil {
		return nil, "", err
	}
	nb := make([]byte, 12)
	_, _ = rand.Read(nb)
	nonce := hex.EncodeToString(nb)
	// The rc files live only until the shell has started: it has read
	// (or opened) them by its first prompt, and they are removed then.
	dir, err := fs.mkdir(ctx)
	if err != nil {
		return nil, "", err
	}
	defer fs.remove(dir)
	userEnv := func(k string) (string, bool) {
		if v, ok := o.Env[k]; ok {
			return v, true
		}
		if o.Host != "" {
			return "", false // the remote's own environment is not known here
		}
		if o.Base != nil {
			v, ok := o.Base[k]
			return v, ok
		}
		return os.LookupEnv(k)
	}
	argv, rcEnv, err := writeRC(ctx, fs, kind, path, dir, nonce, o.NoRC, userEnv)
	if err != nil {
		return nil, "", err
	}
	// The caller's variables override the defaults; the integration's own
	// (ENV, ZDOTDIR) override both, having passed the caller's on to the
	// rc files.
	env := map[string]string{}
	for k, v := range nonInteractive {
		env[k] = v
	}
	for k, v := range o.Env {
		env[k] = v
	}
	for k, v := range rcEnv {
		env[k] = v
	}
	name := o.Name
	if name == "" {
		name = string(kind)
	}
	so := session.StartOptions{Argv: argv, Cwd: o.Cwd, Env: env, Rows: o.Rows, Cols: o.Cols, Name: name,
		Host: o.Host, AcceptNewHostKey: o.AcceptNewHostKey, Base: o.Base}
	if o.Host == "" {
		// The rc and command files are in the temporary directory; a
		// sandbox that lists what may be read must let the shell read them.
		so.SandboxRead = []string{os.TempDir()}
	}
	s, err := mgr.Start(so)
	if err != nil {
		return nil, "", err
	}
	sh := &Shell{Kind: kind, Path: path, sess: s, re: markRE(nonce), nonce: nonce, startDir: dir, fs: fs}
	wait := o.Wait
	if wait <= 0 {
		wait = 10 * time.Second
	}
	why, _, _ := sh.waitFor(ctx, time.Now().Add(wait), nil, func() bool { return sh.ready })
	switch why {
	case stopExited:
		return sh, "", sh.exitedErr()
	case stopCancelled:
		return sh, "", ctx.Err()
	case stopTimeout:
		return sh, "", &NotReadyError{ID: s.ID, Opening: true, Kind: kind, Waited: wait}
	}
	sh.mu.Lock()
	first := sh.firstPrompt
	sh.mu.Unlock()
	banner := sh.text(0, first)
	_ = s.AdvanceReader(session.DefaultReader, sh.scannedTo())
	return sh, banner, nil
}
