// Package screen renders a terminal program's output the way a person sees
// it: a grid of rows and columns with a cursor, an alternate screen and a
// title, kept by an xterm-compatible emulator (charmbracelet/x/vt).
//
// Design: a Screen wraps one emulator behind its own mutex (the emulator is
// not safe for concurrent use). Whoever owns the byte stream calls Write;
// readers take a Snapshot. The emulator answers terminal queries (cursor
// position, device attributes) by writing to an unbuffered pipe inside the
// emulator, so a Write that contains a query blocks until someone reads that
// pipe: a goroutine owned by the Screen drains it into a small queue and a
// second one, which runs only while answers wait, hands them to
// Options.Reply (the program's input). A program that does not read its
// input therefore delays only its own answers, never Write and never a
// Snapshot for longer than one queue push.
//
// The emulator costs about a megabyte per screen; a Screen given a Source
// builds it lazily and answers queries with a light responder until then
// (lazy.go, light.go).
package screen

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// Size limits, the same as the PTY's.
const (
	MinSize = 1
	MaxSize = 1000
	// DefaultScrollback is how many lines that scrolled off the top are kept.
	DefaultScrollback = 100
	// replyQueue bounds answers waiting for the program to take them; a
	// program that asks more than this without reading loses the excess,
	// as it would on a real terminal whose input buffer is full.
	replyQueue = 64
)

// ErrBadSize is returned for a size outside MinSize..MaxSize.
var ErrBadSize = errors.New("screen size out of range")

// Options configure a Screen; zero fields take defaults.
type Options struct {
	Rows, Cols int
	// Scrollback is how many lines above the screen are kept; <= 0 means
	// DefaultScrollback.
	Scrollback int
	// Reply receives the emulator's answers to terminal queries, in order;
	// it should write them to the program's input. Called from one
	// goroutine owned by the Screen; nil drops the answers.
	Reply func(p []byte)
	// Lazy makes the Screen build its emulator only when one is needed,
	// by replaying the output written so far (lazy.go): from Source if
	// set, else from a copy the Screen keeps until then.
	Lazy bool
	// Source holds every byte written, at the offsets Write and Lose
	// count; it may lose some (they are counted in Lost).
	Source Source
	// MaxReplay bounds what a lazy Screen replays (and, without a Source,
	// keeps): it builds its emulator before the output passes this many
	// bytes. 0: no bound.
	MaxReplay int64
}

// Screen is a terminal emulator fed with a program's output.
type Screen struct {
	mu  sync.Mutex
	emu *vt.Emulator // guarded by mu; nil while a lazy Screen runs light (lazy.go)
	lt  *light       // guarded by mu; the light responder while emu is nil
	// The emulator reports these only through callbacks, which run inside
	// emu.Write (so under mu).
	title        string // guarded by mu
	cursorHidden bool   // guarded by mu
	written      int64  // guarded by mu; bytes fed so far
	skipped      int64  // guarded by mu; of written, bytes fast-forwarded
	writes       uint64 // guarded by mu; Write and Resize calls that changed state
	closed       bool   // guarded by mu
	scrollback   int    // lines of scrollback kept

	// What a lazy Screen needs to build its emulator (lazy.go), guarded
	// by mu: the output so far is the replay source's bytes before off
	// (src's, or without one kept's), drawn at the sizes in sizes (the
	// first at offset 0) until the emulator exists.
	src       Source
	kept      []byte
	maxReplay int64
	off       int64
	sizes     []sizeAt
	lost      int64 // bytes of the output that never reached the emulator

	// State fast-forward depends on (see fastforward.go), guarded by mu.
	pendingEsc bool // the output fed so far ends inside an escape sequence
	margins    bool // a scroll region narrower than the screen is set
	lrMargins  bool // left/right margin mode is on
	penBg      bool // the pen may have a background colour (see notePen)
	savedBg    bool // a saved cursor's pen may have one: saved since the last reset
	// oddModes: autowrap off, insert mode or newline mode is on; lines
	// then render differently from the scratch emulator's defaults.
	oddModes map[ansi.Mode]bool

	appCursor bool // guarded by mu; DECCKM: cursor keys send SS3 sequences

	pr        printer // guarded by mu; the print path in front of emu (print.go)
	scratchPr printer // guarded by mu; the same for scratch
	replaying bool    // guarded by mu; fast-forward's replay: ED 3 keeps the emulator's meaning
	switching bool    // guarded by mu; a screen-switch hook is feeding its own sequences
	erasing   bool    // guarded by mu; an ED hook is feeding the emulator's own ED

	noFastForward bool         // tests: render every byte, the reference for fast-forward
	scratch       *vt.Emulator // guarded by mu; draws scrollback for fast-forward, made on first use

	// Answers to terminal queries, from the light responder (under mu) or
	// the emulator's drain goroutine, wait in queue for the one replier
	// goroutine, which runs only while the queue is not empty.
	reply    func(p []byte)
	rmu      sync.Mutex
	queue    [][]byte    // guarded by rmu
	replying bool        // guarded by rmu; a replier goroutine is running
	muted    atomic.Bool // the emulator is replaying old output: its answers were given then
	// pending counts answers queued and not yet handed to Reply.
	pending atomic.Int64
	wg      sync.WaitGroup // the drain and replier goroutines
	once    sync.Once
}

// New starts a Screen of the given size.
func New(o Options) (*Screen, error) {
	if err := checkSize(o.Rows, o.Cols); err != nil {
		return nil, err
	}
	if o.Scrollback <= 0 {
		o.Scrollback = DefaultScrollback
	}
	s := &Screen{scrollback: o.Scrollback, reply: o.Reply, src: o.Source, maxReplay: o.MaxReplay}
	if s.reply == nil {
		s.reply = func([]byte) {}
	}
	if o.Lazy {
		s.lt = newLight(o.Rows, o.Cols)
		s.sizes = []sizeAt{{rows: o.Rows, cols: o.Cols}}
		return s, nil
	}
	s.startEmulator(o.Rows, o.Cols, &s.wg)
	return s, nil
}

// startEmulator makes the emulator with its hooks and starts draining its
// answers, the drain goroutine counted in wg. Called by New or under mu.
func (s *Screen) startEmulator(rows, cols int, wg *sync.WaitGroup) {
	s.emu = vt.NewEmulator(cols, rows)
	s.oddModes = map[ansi.Mode]bool{}
	s.emu.SetScrollbackSize(s.scrollback)
	s.emu.SetCallbacks(vt.Callbacks{
		Title:            func(t string) { s.title = t },
		CursorVisibility: func(visible bool) { s.cursorHidden = !visible },
		EnableMode:       func(m ansi.Mode) { s.setMode(m, true) },
		DisableMode:      func(m ansi.Mode) { s.setMode(m, false) },
	})
	s.pr = printer{emu: s.emu, modes: s.oddModes}
	s.track()
	s.hookSequences()
	wg.Add(1)
	go s.drain(s.emu, wg)
}

func checkSize(rows, cols int) error {
	if rows < MinSize || rows > MaxSize || cols < MinSize || cols > MaxSize {
		return errors.Join(ErrBadSize, errors.New("rows and cols must be between 1 and 1000"))
	}
	return nil
}

// drain reads the emulator's answers as they are written, so emu.Write
// never waits on the program. It ends when Close closes the pipe.
func (s *Screen) drain(emu *vt.Emulator, wg *sync.WaitGroup) {
	defer wg.Done()
	buf := make([]byte, 4096)
	for {
		n, err := emu.Read(buf)
		if n > 0 && !s.muted.Load() {
			s.queueReply(append([]byte(nil), buf[:n]...))
		}
		if err != nil {
			return
		}
	}
}

// queueReply hands an answer to the replier goroutine, starting it if
// none runs; answers beyond replyQueue are dropped.
func (s *Screen) queueReply(p []byte) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if len(s.queue) >= replyQueue {
		return // the program is not taking its answers; drop
	}
	s.pending.Add(1)
	s.queue = append(s.queue, p)
	if !s.replying {
		s.replying = true
		s.wg.Add(1)
		go s.replier()
	}
}

// replier delivers queued answers in order and ends when none is left.
func (s *Screen) replier() {
	defer s.wg.Done()
	for {
		s.rmu.Lock()
		if len(s.queue) == 0 {
			s.replying = false
			s.queue = nil
			s.rmu.Unlock()
			return
		}
		p := s.queue[0]
		s.queue = s.queue[1:]
		s.rmu.Unlock()
		s.reply(p)
		s.pending.Add(-1)
	}
}

// Write feeds program output to the emulator (or, while a lazy Screen
// has none, to the light responder). After Close it does nothing.
func (s *Screen) Write(p []byte) {
	if len(p) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.written += int64(len(p))
	s.writes++
	if s.emu == nil && s.writeLight(p) {
		return
	}
	s.off += int64(len(p))
	s.fastForward(p)
	if bytes.IndexByte(p, 0x1b) >= 0 {
		// Queries are escape sequences. An empty write to the answer pipe
		// returns only once the drain goroutine reads again, that is after
		// it queued every answer p produced (and counted it in pending).
		_, _ = s.emu.InputPipe().Write(nil)
	}
}

// PendingReplies is how many answers to terminal queries in the output
// written so far have not been handed to Reply yet.
func (s *Screen) PendingReplies() int64 { return s.pending.Load() }

// Skipped is how many of the written bytes were fast-forwarded over
// (scrolled-off plain text that was never drawn).
func (s *Screen) Skipped() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skipped
}

// Resize changes the grid; the program redraws after its SIGWINCH.
func (s *Screen) Resize(rows, cols int) error {
	if err := checkSize(rows, cols); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	if s.emu == nil {
		s.sizes = append(s.sizes, sizeAt{at: s.off, rows: rows, cols: cols})
		s.lt.resize(rows, cols)
		return nil
	}
	s.resize(rows, cols)
	return nil
}

// resize changes the emulator's grid. Called under mu.
func (s *Screen) resize(rows, cols int) {
	s.emu.Resize(cols, rows)
	s.pr.lastOK = false // cells moved: a mark that follows joins nothing
}

// setMode follows the modes that Screen reports or depends on; called by
// the emulator under mu.
func (s *Screen) setMode(m ansi.Mode, on bool) {
	switch m {
	case ansi.ModeLeftRightMargin:
		s.lrMargins = on
	case ansi.ModeCursorKeys:
		s.appCursor = on
	case ansi.ModeAltScreenSaveCursor: // saves the cursor on, restores it off
		if on {
			s.savedBg = s.savedBg || s.penBg
		} else {
			s.penBg = s.savedBg
		}
	case ansi.ModeAutoWrap:
		s.setOdd(m, !on)
	case ansi.ModeInsertReplace, ansi.ModeLineFeedNewLine:
		s.setOdd(m, on)
	}
}

func (s *Screen) setOdd(m ansi.Mode, odd bool) {
	if odd {
		s.oddModes[m] = true
	} else {
		delete(s.oddModes, m)
	}
}

// AppCursorKeys reports whether the program asked for application cursor
// keys (DECCKM), so arrow keys must be sent as ESC O A rather than ESC [ A.
func (s *Screen) AppCursorKeys() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.emu == nil {
		return s.lt.appCursor
	}
	return s.appCursor
}

// Written is how many bytes were fed.
func (s *Screen) Written() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written
}

// AltScreen reports whether the program switched to the alternate screen
// (full-screen programs: vim, less, top, curses).
func (s *Screen) AltScreen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The light responder has the emulator built at the switch.
	return s.emu != nil && s.emu.IsAltScreen()
}

// Close stops feeding and the goroutines; Snapshot keeps working.
// Safe to call more than once.
func (s *Screen) Close() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.closeEmulator()
		s.mu.Unlock()
		s.wg.Wait()
	})
}

// closeEmulator ends the drain goroutine, if the emulator exists. Called
// under mu.
func (s *Screen) closeEmulator() {
	if s.emu == nil {
		return
	}
	// Closing the writer end directly (not emu.Close) ends the blocked
	// Read without touching the emulator's unsynchronized closed flag.
	if pw, ok := s.emu.InputPipe().(*io.PipeWriter); ok {
		_ = pw.CloseWithError(io.EOF)
	}
}
