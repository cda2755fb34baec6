package session

import "github.com/agentty/agentty/internal/ttymode"

// MaxCanonLine is how many bytes of one line a program on a terminal in
// canonical mode can receive: Linux's N_TTY read buffer holds 4096 bytes
// (N_TTY_BUF_SIZE) and keeps the last one for the line's terminator; bytes
// past it are dropped until the terminator arrives. Complete lines waiting
// to be read are not dropped: the kernel stops taking input until the
// program reads them, so only the length of each line matters.
const MaxCanonLine = 4095

// Classes of input bytes in canonical mode (see n_tty_receive_char_special).
const (
	cOrdinary = iota // stored on the line
	cIgnored         // consumed by the line discipline, the line unchanged
	cFlush           // a signal key: the pending input is flushed
	cErase           // VERASE: the line loses a byte
	cKill            // VKILL: the line is erased
	cLiteral         // VLNEXT: the next byte is stored as is
	cEnd             // a line terminator
)

// canonScan follows the line the terminal's line discipline assembles, to
// know how long each line gets. The byte classes are a table, so a scan of
// megabytes costs one lookup per byte.
type canonScan struct {
	class [256]uint8
	line  int  // bytes on the unfinished line
	lnext bool // the previous byte was VLNEXT: this one is taken literally
}

func newCanonScan(t *ttymode.Modes, pending int) *canonScan {
	c := &canonScan{line: pending}
	set := func(idx int, cl uint8) {
		if v := t.Chars[idx]; v != 0 && c.class[v] == cOrdinary { // 0: disabled
			c.class[v] = cl
		}
	}
	// Earlier rules win, in the kernel's order.
	if t.IXON {
		set(ttymode.VSTART, cIgnored)
		set(ttymode.VSTOP, cIgnored)
	}
	if t.Signals {
		flush := uint8(cFlush)
		if t.NoFlush {
			flush = cIgnored
		}
		set(ttymode.VINTR, flush)
		set(ttymode.VQUIT, flush)
		set(ttymode.VSUSP, flush)
	}
	switch {
	case t.IgnCR:
		c.class['\r'] = cIgnored
	case t.ICRNL:
		c.class['\r'] = cEnd
	}
	if c.class['\n'] == cOrdinary && !t.INLCR {
		c.class['\n'] = cEnd // with INLCR it becomes '\r', which ends no line
	}
	set(ttymode.VERASE, cErase)
	set(ttymode.VKILL, cKill)
	if t.Extended {
		set(ttymode.VWERASE, cIgnored) // WERASE only shortens the line: counting it as kept is safe
		set(ttymode.VLNEXT, cLiteral)
		set(ttymode.VREPRINT, cIgnored)
		set(ttymode.VEOL2, cEnd)
	}
	set(ttymode.VEOF, cEnd)
	set(ttymode.VEOL, cEnd)
	return c
}

// feed takes data and returns the index of the byte that makes the line
// longer than MaxCanonLine, or -1.
func (c *canonScan) feed(data string) int {
	line, lnext := c.line, c.lnext
	defer func() { c.line, c.lnext = line, lnext }()
	for i := 0; i < len(data); i++ {
		cl := c.class[data[i]]
		if lnext {
			cl, lnext = cOrdinary, false
		}
		switch cl {
		case cOrdinary:
			line++
			if line > MaxCanonLine {
				return i
			}
		case cFlush, cKill, cEnd:
			line = 0
		case cErase:
			if line > 0 {
				line--
			}
		case cLiteral:
			lnext = true
		}
	}
	return -1
}

// lineTooLong describes the first line of an input that a canonical-mode
// terminal would cut.
type lineTooLong struct {
	length  int // bytes of the line, counting earlier, unfinished input
	earlier int // of which typed by earlier calls
}

// scanCanon walks data starting on a line that already holds pending bytes.
// It returns the bytes on the unfinished line after data, or the first line
// longer than MaxCanonLine.
func scanCanon(t *ttymode.Modes, pending int, data string) (int, *lineTooLong) {
	c := newCanonScan(t, pending)
	i := c.feed(data)
	if i < 0 {
		return c.line, nil
	}
	// Measure the whole line for the message.
	n := c.line
	for i++; i < len(data) && c.line > 0; i++ {
		c.feed(data[i : i+1])
		n = max(n, c.line)
	}
	return 0, &lineTooLong{length: n, earlier: pending}
}

// checkLine refuses input that the terminal, in canonical mode, would cut
// short, and returns the scan to account for what gets written. It is nil
// when the terminal is not in canonical mode or cannot be asked (pipes,
// remote sessions): then every byte written reaches the program.
func (s *Session) checkLine(ops []op) (*ttymode.Modes, error) {
	t, err := s.proc.Termios()
	if err != nil || !t.Canonical {
		s.mu.Lock()
		s.canonPending = 0
		s.mu.Unlock()
		return nil, nil
	}
	s.mu.Lock()
	pending := s.canonPending
	s.mu.Unlock()
	for _, o := range ops {
		var long *lineTooLong
		if pending, long = scanCanon(&t, pending, o.data); long != nil {
			return nil, s.lineErr(long)
		}
	}
	return &t, nil
}

// wroteLine records the unfinished line a canonical-mode write left behind.
func (s *Session) wroteLine(t *ttymode.Modes, data string) {
	if t == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.canonPending, _ = scanCanon(t, s.canonPending, data)
}

func (s *Session) lineErr(l *lineTooLong) error {
	return &LineTooLongError{ID: s.ID, Length: l.length, Earlier: l.earlier}
}
