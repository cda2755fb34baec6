// Package ttymode describes a terminal's line discipline settings in one
// form for every platform: termios flag values and control character
// indices differ between Linux and macOS (and Windows has no termios), so
// the engine reads what it needs through Modes instead of unix.Termios.
package ttymode

import "errors"

// Indices of Modes.Chars. They are this package's own, not any kernel's.
const (
	VINTR = iota
	VQUIT
	VSUSP
	VERASE
	VKILL
	VWERASE
	VLNEXT
	VREPRINT
	VEOL
	VEOL2
	VEOF
	VSTART
	VSTOP
	NChars
)

// Modes is what the engine needs of a terminal's termios.
type Modes struct {
	Canonical bool // ICANON: input arrives a line at a time
	Echo      bool // ECHO
	Signals   bool // ISIG: VINTR, VQUIT, VSUSP raise signals
	Extended  bool // IEXTEN: VWERASE, VLNEXT, VREPRINT, VEOL2 act
	NoFlush   bool // NOFLSH: a signal key keeps the pending input
	IXON      bool // VSTART and VSTOP control output
	IgnCR     bool // IGNCR: '\r' is dropped
	ICRNL     bool // '\r' becomes '\n'
	INLCR     bool // '\n' becomes '\r'
	// Chars holds the control characters by the indices above; 0 means
	// the function is disabled (whatever the kernel's disabled value is).
	Chars [NChars]byte
}

// ErrUnsupported is returned by Read where a terminal has no termios to
// read (Windows); it wraps errors.ErrUnsupported.
var ErrUnsupported = errors.Join(errors.ErrUnsupported, errors.New("terminal modes cannot be read on this platform"))
