// Package audit writes what agents did to a JSON Lines file: one line per
// session start, input, exit, policy refusal, confirmation and the policy in
// force at startup.
//
// Each line is written with a single write(2) on a file opened O_APPEND
// before the call that caused it returns, and fsync'ed unless NoSync is
// set: after a crash (even kill -9) the log holds every complete event up to
// the last one, and never a half line. The file is rotated by size.
package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// FileName is the active log file inside the audit directory; rotated files
// are FileName.1 (newest) to FileName.<MaxFiles>.
const FileName = "agentty-audit.jsonl"

// Event types.
const (
	EventPolicy  = "policy"  // the configuration and policy in force, at startup
	EventStart   = "start"   // a session started
	EventInput   = "input"   // input sent to a session
	EventStop    = "stop"    // terminate_process asked a session to stop
	EventExit    = "exit"    // a session's process exited
	EventRefusal = "refusal" // the policy or a limit refused a request
	EventConfirm = "confirm" // a human answered a confirmation request
	EventLease   = "lease"   // a person took the keyboard of a session or handed it back
	EventExec    = "exec"    // a command ran through exec_command, run_command, retry_command or diff_commands
)

// Event is one line of the log. Fields that do not apply are left out.
type Event struct {
	TS      time.Time `json:"ts"`
	Event   string    `json:"event"`
	Session string    `json:"session,omitempty"`
	// Client identifies who asked: "stdio", or the MCP session id and
	// remote address over HTTP.
	Client  string `json:"client,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Command string `json:"command,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	PID     int    `json:"pid,omitempty"`
	// Input is what was typed; with echo off (a password prompt) it is
	// replaced by "[redacted N bytes]" and Redacted is set.
	Input    string `json:"input,omitempty"`
	Redacted bool   `json:"redacted,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Exit     *int   `json:"exit,omitempty"`
	Signal   string `json:"signal,omitempty"`
	// Detail carries event-specific facts (policy summary, config sources).
	Detail map[string]string `json:"detail,omitempty"`
}

// Options tune a Log; nil means defaults.
type Options struct {
	MaxSize  int64 // rotate when the file would grow past this; default 10 MiB
	MaxFiles int   // rotated files kept; default 5
	NoSync   bool  // skip fsync after each line (survives a process crash, not a power loss)
	Now      func() time.Time
}

// Defaults.
const (
	DefaultMaxSize  = 10 << 20
	DefaultMaxFiles = 5
)

// MaxInputChars bounds the input text kept per event.
const MaxInputChars = 4096

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("audit log closed")

// Log is an open audit log, safe for concurrent use. A nil *Log discards.
type Log struct {
	dir  string
	opts Options

	mu   sync.Mutex
	f    *os.File // guarded by mu; nil once closed
	size int64    // guarded by mu
}

// Open creates dir if needed and opens its log for appending.
func Open(dir string, o *Options) (*Log, error) {
	l := &Log{dir: dir}
	if o != nil {
		l.opts = *o
	}
	if l.opts.MaxSize <= 0 {
		l.opts.MaxSize = DefaultMaxSize
	}
	if l.opts.MaxFiles <= 0 {
		l.opts.MaxFiles = DefaultMaxFiles
	}
	if l.opts.Now == nil {
		l.opts.Now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

// Path is the active log file.
func (l *Log) Path() string { return filepath.Join(l.dir, FileName) }

// Dir is the audit directory.
func (l *Log) Dir() string {
	if l == nil {
		return ""
	}
	return l.dir
}

func (l *Log) open() error {
	f, err := os.OpenFile(l.Path(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit: %w", err)
	}
	l.f, l.size = f, st.Size()
	return nil
}

// Write appends one event; it returns once the line is in the file.
func (l *Log) Write(e Event) error {
	if l == nil {
		return nil
	}
	if e.TS.IsZero() {
		e.TS = l.opts.Now().UTC()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return ErrClosed
	}
	if l.size > 0 && l.size+int64(len(line)) > l.opts.MaxSize {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(line) // one write(2) on an O_APPEND file: never interleaved or torn by a crash of ours
	l.size += int64(n)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if !l.opts.NoSync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
	}
	return nil
}

// rotate shifts FileName.(i) to .(i+1), drops the oldest and starts afresh.
// Called with mu held.
func (l *Log) rotate() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	l.f = nil
	base := l.Path()
	_ = os.Remove(fmt.Sprintf("%s.%d", base, l.opts.MaxFiles))
	for i := l.opts.MaxFiles - 1; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", base, i), fmt.Sprintf("%s.%d", base, i+1))
	}
	if err := os.Rename(base, base+".1"); err != nil {
		return fmt.Errorf("audit: rotate: %w", err)
	}
	return l.open()
}

// Close closes the file; later writes return ErrClosed. Safe to call twice.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// InputText is the Input field for text typed into a session: redacted
// when the terminal's echo is off, clipped when long.
func InputText(text string, echoOff bool) (string, bool) {
	if echoOff {
		return fmt.Sprintf("[redacted %d bytes]", len(text)), true
	}
	if len(text) > MaxInputChars {
		return fmt.Sprintf("%s…[%d bytes]", text[:MaxInputChars], len(text)), false
	}
	return text, false
}
