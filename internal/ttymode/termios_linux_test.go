package ttymode

import (
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

func TestRead_PTYModes(t *testing.T) {
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	set := func(t *testing.T, edit func(*unix.Termios)) {
		t.Helper()
		tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		edit(tio)
		if err := unix.IoctlSetTermios(int(slave.Fd()), unix.TCSETS, tio); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("cooked", func(t *testing.T) {
		set(t, func(tio *unix.Termios) {
			tio.Lflag |= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
			tio.Lflag &^= unix.NOFLSH
			tio.Iflag |= unix.ICRNL | unix.IXON
			tio.Iflag &^= unix.IGNCR | unix.INLCR
			tio.Cc[unix.VINTR], tio.Cc[unix.VEOF], tio.Cc[unix.VEOL] = 3, 4, 0
		})
		m, err := Read(master)
		if err != nil {
			t.Fatal(err)
		}
		want := Modes{Canonical: true, Echo: true, Signals: true, Extended: true, IXON: true, ICRNL: true}
		got := m
		got.Chars = [NChars]byte{}
		if got != want {
			t.Errorf("flags = %+v, want %+v", got, want)
		}
		if m.Chars[VINTR] != 3 || m.Chars[VEOF] != 4 || m.Chars[VEOL] != 0 {
			t.Errorf("VINTR, VEOF, VEOL = %d, %d, %d; want 3, 4, 0", m.Chars[VINTR], m.Chars[VEOF], m.Chars[VEOL])
		}
	})
	t.Run("password", func(t *testing.T) {
		set(t, func(tio *unix.Termios) {
			tio.Lflag &^= unix.ECHO | unix.ISIG
			tio.Lflag |= unix.NOFLSH
			tio.Iflag &^= unix.ICRNL | unix.IXON
			tio.Iflag |= unix.IGNCR | unix.INLCR
			tio.Cc[unix.VSUSP] = 0x1a
		})
		m, err := Read(master)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Canonical || m.Echo || m.Signals || !m.NoFlush || m.IXON || m.ICRNL || !m.IgnCR || !m.INLCR {
			t.Errorf("modes = %+v; want canonical, no echo, no signals, noflush, igncr, inlcr", m)
		}
		if m.Chars[VSUSP] != 0x1a {
			t.Errorf("VSUSP = %d, want 26", m.Chars[VSUSP])
		}
	})
	t.Run("closed", func(t *testing.T) {
		m2, s2, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		s2.Close()
		m2.Close()
		if _, err := Read(m2); err == nil {
			t.Error("Read of a closed master succeeded")
		}
	})
}
