//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/contain"
)

// reportWait bounds how long a start waits for the helper to exec the
// program; it applies a few rules and execs, so only a wedged system
// takes this long.
const reportWait = 10 * time.Second

// Launch is one sandboxed start between Prepare and Started.
type Launch struct {
	r, w *os.File // the report pipe: the helper holds w as fd 3, close-on-exec
	spec *os.File // the Spec, fd 4 in the helper
}

// Prepare turns cmd into a start of the helper that applies p and then
// execs cmd's program. cmd.Path and cmd.Args must be set, and cmd must
// have no ExtraFiles (the report pipe is fd 3).
func Prepare(cmd *exec.Cmd, p contain.Profile) (*Launch, error) {
	if len(cmd.ExtraFiles) > 0 {
		return nil, errors.New("sandbox: command already has extra files")
	}
	spec := Spec{Path: cmd.Path, Argv: cmd.Args, Limits: p.Limits, Sandbox: p.Sandbox}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if p.Sandbox.NoNetwork {
		spec.DropCaps = privateNetwork(cmd.SysProcAttr)
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	fd, err := unix.MemfdCreate("agentty-sandbox-spec", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("sandbox: spec file: %w", err)
	}
	f := os.NewFile(uintptr(fd), "agentty-sandbox-spec")
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: spec file: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		f.Close()
		return nil, err
	}
	// /proc/self/exe in the forked child is this very binary, even if the
	// file on disk was replaced since agentty started.
	cmd.Path = "/proc/self/exe"
	cmd.Args = []string{"agentty-sandbox", HelperArg}
	cmd.ExtraFiles = []*os.File{w, f}
	return &Launch{r: r, w: w, spec: f}, nil
}

// privateNetwork asks for a new network namespace; without root a new
// user namespace (mapping only agentty's own ids) holds the capability
// the helper needs to bring loopback up, and the helper drops it again.
func privateNetwork(a *syscall.SysProcAttr) (dropCaps bool) {
	a.Cloneflags |= syscall.CLONE_NEWNET
	if os.Geteuid() == 0 {
		return false
	}
	uid, gid := os.Getuid(), os.Getgid()
	a.Cloneflags |= syscall.CLONE_NEWUSER
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	a.AmbientCaps = append(a.AmbientCaps, capNetAdmin)
	return true
}

const capNetAdmin = 12 // CAP_NET_ADMIN

// Started finishes the start: given cmd.Start's error, it waits until the
// helper exec'd the program (the report pipe closes empty) or failed (it
// wrote why: a *contain.UnavailableError, or the exec's *os.PathError).
// On failure the caller kills and reaps the child.
func (l *Launch) Started(startErr error) error {
	l.w.Close()
	l.spec.Close()
	defer l.r.Close()
	if startErr != nil {
		return startErr
	}
	_ = l.r.SetReadDeadline(time.Now().Add(reportWait))
	b, err := io.ReadAll(l.r)
	if err != nil {
		return &contain.UnavailableError{Feature: "sandbox", Reason: fmt.Sprintf("no word from the sandbox helper: %v", err)}
	}
	if len(b) == 0 {
		return nil
	}
	stage, msg, _ := strings.Cut(string(b), "\t")
	if stage == "exec" {
		path, why, _ := strings.Cut(msg, "\t")
		return &os.PathError{Op: "exec", Path: path, Err: errnoOf(why)}
	}
	// The kernel refused part of the profile: the program did not run.
	return &contain.UnavailableError{Feature: stage, Reason: msg}
}

// Abort releases the pipe of a start that never happened.
func (l *Launch) Abort() {
	l.w.Close()
	l.spec.Close()
	l.r.Close()
}
