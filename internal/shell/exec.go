package shell

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// ExecOptions shape one command; the zero value waits 30 s and returns up
// to DefaultMaxLines lines.
type ExecOptions struct {
	Timeout  time.Duration // 0 means DefaultTimeout; capped at session.MaxWait
	MaxLines int           // head+tail cut; 0 means DefaultMaxLines, <0 unlimited
	MaxBytes int           // head+tail cut of the text; 0 means DefaultMaxBytes
	// IgnoreInput keeps waiting when the command blocks reading the
	// terminal, instead of returning so the agent can answer with
	// send_input.
	IgnoreInput bool
	// OnOutput, when set, is called with the command's newest output as it
	// arrives (the hook for progress notifications).
	OnOutput func(elapsed time.Duration, newest []byte)
}

// Defaults.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultMaxLines = 200
	DefaultMaxBytes = 256 << 10
)

func (o *ExecOptions) normalize() {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	o.Timeout = min(o.Timeout, session.MaxWait)
	if o.MaxLines == 0 {
		o.MaxLines = DefaultMaxLines
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
}

// Result is what a command did.
type Result struct {
	Output string // the command's own output (no echo, no prompt), clean text
	// OutputBytes is the raw size of the output so far; OutputLines counts
	// the clean text's lines before any cut.
	OutputBytes  int64
	OutputLines  int
	Truncated    bool
	OmittedLines int
	OmittedBytes int
	ExitCode     *int   // set when the command finished
	Cwd          string // the shell's directory after the command (or now)
	Duration     time.Duration
	TimedOut     bool
	Running      bool         // the command is still running
	InputState   record.State // awaiting_input / awaiting_password when it waits for input
	InputDetail  string
	ShellExited  bool
	ShellExit    *record.ExitStatus
	Command      string
	ID           int
}

// Exec runs command in the shell and waits for it as o says. Only one
// command runs at a time: while one is running Exec fails with ErrBusy.
func (sh *Shell) Exec(ctx context.Context, command string, o ExecOptions) (Result, error) {
	o.normalize()
	if strings.TrimSpace(command) == "" {
		return Result{}, fmt.Errorf("%w: command is empty", session.ErrBadArgs)
	}
	sh.mu.Lock()
	sh.scanLocked()
	if r := sh.run; r != nil && !r.done() {
		sh.mu.Unlock()
		return Result{}, &BusyError{ID: sh.sess.ID, Command: clip(r.text, 200), Running: time.Since(r.started).Round(time.Millisecond)}
	}
	if isDone(sh.sess.Done()) {
		sh.mu.Unlock()
		return Result{}, sh.exitedErr()
	}
	if !sh.ready {
		sh.mu.Unlock()
		return Result{}, &NotReadyError{ID: sh.sess.ID}
	}
	sh.nextID++
	r := &job{id: sh.nextID, text: command, started: time.Now(), outStart: -1, outEnd: -1}
	// r holds the shell (a second Exec gets ErrBusy) while its file is
	// written, which for a remote shell is a network round trip made
	// without mu.
	prev := sh.run
	sh.run = r
	sh.mu.Unlock()
	file, body, err := sh.writeCommand(ctx, r.id, command)
	if err != nil {
		sh.mu.Lock()
		if sh.run == r {
			sh.run = prev // never typed: the shell is free, await_command sees the last command
		}
		sh.mu.Unlock()
		return Result{}, err
	}
	sh.mu.Lock()
	r.file, r.body = file, body
	sh.mu.Unlock()
	line := sh.runLine(r.id, r.file)
	if _, err := sh.sess.Send(session.Input{Text: line, Enter: true}, time.Now().Add(5*time.Second)); err != nil {
		sh.mu.Lock()
		if sh.run == r {
			sh.run = nil // it never started: nothing to await, and the shell is free
		}
		sh.mu.Unlock()
		sh.fs.remove(r.file)
		if r.body != "" {
			sh.fs.remove(r.body)
		}
		if isDone(sh.sess.Done()) {
			return Result{}, sh.exitedErr()
		}
		return Result{}, fmt.Errorf("shell: type the command: %w", err)
	}
	return sh.await(ctx, r, o)
}

// Await waits for the command started by the last Exec and returns the
// output it produced since what was already returned.
func (sh *Shell) Await(ctx context.Context, o ExecOptions) (Result, error) {
	o.normalize()
	sh.mu.Lock()
	r := sh.run
	sh.mu.Unlock()
	if r == nil {
		return Result{}, &NoCommandError{ID: sh.sess.ID}
	}
	return sh.await(ctx, r, o)
}

func (sh *Shell) await(ctx context.Context, r *job, o ExecOptions) (Result, error) {
	w := &waitOpts{onOutput: o.OnOutput}
	if !o.IgnoreInput {
		w.probe = func() bool { return r.outStart >= 0 }
	}
	why, state, detail := sh.waitFor(ctx, time.Now().Add(o.Timeout), w, r.done)
	if why == stopCancelled {
		return Result{}, ctx.Err()
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.scanLocked()
	res := Result{Command: r.text, ID: r.id, Cwd: sh.cwd}
	from := r.returned
	if r.outStart < 0 {
		from = -1
	}
	end := r.outEnd
	switch {
	case r.done():
		code := r.status
		res.ExitCode = &code
		res.Duration = r.ended.Sub(r.started)
	case why == stopExited:
		res.ShellExited = true
		res.ShellExit = sh.sess.Status()
		res.Duration = time.Since(r.started)
		end = sh.scanned
		r.outEnd, r.ended = end, time.Now()
		sh.removeFile(r) // the shell may have died before starting it
		if r.outStart < 0 {
			r.outStart, from = end, end
		}
	default:
		res.Running = true
		res.TimedOut = why == stopTimeout
		res.InputState, res.InputDetail = state, detail
		res.Duration = time.Since(r.started)
		end = sh.scanned
	}
	if from >= 0 && end > from {
		sh.fill(&res, from, end, o)
		r.returned = end
	}
	if r.done() {
		// The prompt after the command is not the agent's business.
		end = max(end, sh.scanned)
	}
	_ = sh.sess.AdvanceReader(session.DefaultReader, max(end, 0))
	return res, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// runLine is what is typed to run command id from file f.
func (sh *Shell) runLine(id int, f string) string {
	switch sh.Kind {
	case PowerShell:
		return pwshLine(id, f)
	case Cmd:
		return cmdQuote(f)
	}
	// Ctrl+U first drops anything half-typed at the prompt (by send_input);
	// a leading space keeps the line out of the shell's history.
	return "\x15 . " + quote(f)
}

// writeCommand puts a command's text in a new private file (0600,
// O_EXCL) for the shell to source, on the machine the shell runs on. A
// local file is removed by agentty as soon as the shell has started the
// command (its C mark): bash has read it whole by then, and sh and zsh read
// on from the descriptor they opened. A remote file is removed by the shell
// itself as the command starts (__agentty_begin's second argument), which
// costs no round trip. PowerShell's file needs its .ps1 name; cmd.exe's
// command runs from a wrapper (winshells.go), whose file is returned
// first, then the command's own (body).
func (sh *Shell) writeCommand(ctx context.Context, id int, command string) (file, body string, err error) {
	switch sh.Kind {
	case PowerShell:
		file, err = sh.fs.create(ctx, windowsCommandName(os.TempDir(), ".ps1"), []byte(pwshCommand(command)))
		return file, "", err
	case Cmd:
		if body, err = sh.fs.create(ctx, windowsCommandName(os.TempDir(), ".cmd"), []byte(cmdBody(command))); err != nil {
			return "", "", err
		}
		if file, err = sh.fs.create(ctx, windowsCommandName(os.TempDir(), ".cmd"), []byte(cmdCommand(sh.nonce, id, body))); err != nil {
			sh.fs.remove(body)
			return "", "", err
		}
		return file, body, nil
	}
	begin := "__agentty_begin " + strconv.Itoa(id)
	var p string
	if _, remote := sh.fs.(remoteFiles); remote {
		p = randomName("agentty-cmd-")
		begin += " " + quote(p)
	}
	text := begin + "\n" + command
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	file, err = sh.fs.create(ctx, p, []byte(text))
	return file, "", err
}
