//go:build linux || darwin

package ttymode

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// FromTermios converts this platform's termios.
func FromTermios(t *unix.Termios) Modes {
	m := Modes{
		Canonical: t.Lflag&unix.ICANON != 0,
		Echo:      t.Lflag&unix.ECHO != 0,
		Signals:   t.Lflag&unix.ISIG != 0,
		Extended:  t.Lflag&unix.IEXTEN != 0,
		NoFlush:   t.Lflag&unix.NOFLSH != 0,
		IXON:      t.Iflag&unix.IXON != 0,
		IgnCR:     t.Iflag&unix.IGNCR != 0,
		ICRNL:     t.Iflag&unix.ICRNL != 0,
		INLCR:     t.Iflag&unix.INLCR != 0,
	}
	for i, idx := range [NChars]int{
		VINTR: unix.VINTR, VQUIT: unix.VQUIT, VSUSP: unix.VSUSP, VERASE: unix.VERASE, VKILL: unix.VKILL,
		VWERASE: unix.VWERASE, VLNEXT: unix.VLNEXT, VREPRINT: unix.VREPRINT, VEOL: unix.VEOL, VEOL2: unix.VEOL2,
		VEOF: unix.VEOF, VSTART: unix.VSTART, VSTOP: unix.VSTOP,
	} {
		if v := t.Cc[idx]; v != vdisable {
			m.Chars[i] = v
		}
	}
	return m
}

// Read reads the modes of the terminal f is open on; for a PTY master
// that is its slave's. It goes through the file's RawConn, so a file on
// the poller stays there (f.Fd would make it blocking).
func Read(f *os.File) (Modes, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return Modes{}, err
	}
	var t *unix.Termios
	var terr error
	if err := rc.Control(func(fd uintptr) { t, terr = unix.IoctlGetTermios(int(fd), getTermios) }); err != nil {
		// Control fails only once the file is closing, and reports it as
		// an internal poll error that errors.Is cannot match.
		return Modes{}, fmt.Errorf("%w: %v", os.ErrClosed, err)
	}
	if terr != nil {
		return Modes{}, fmt.Errorf("ttymode: read termios: %w", terr)
	}
	return FromTermios(t), nil
}
