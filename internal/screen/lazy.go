package screen

import "sync"

// Building the emulator lazily.
//
// Most PTY sessions are never looked at as a screen: a shell or a REPL
// that the agent talks to through read_output. Their emulator (two cell
// grids and the scrollback, about a megabyte) is waste, yet programs ask
// the terminal things (the cursor position, device attributes) from their
// first byte and must get the answers they would get from it. So a Screen
// made Lazy starts with only the light responder (light.go), which
// gives those answers and keeps the little the tools read without a screen
// (the cursor keys mode; "not on the alternate screen"), and records each
// resize at its offset in the output. The emulator is built when
//   - someone reads the screen (Snapshot, StyledSnapshot, Skipped), or
//   - the output does something the light responder cannot answer exactly
//     (light.need: the alternate screen, a cursor position report while the
//     position is not known, ...), or
//   - the output would pass Options.MaxReplay, which bounds the cost of a
//     replay (and of the copy below);
// by replaying everything written so far, with the resizes at their
// offsets, with its answers muted (they were given when the output came).
// It then stays: the Screen works as an eager one from there on. The
// output is replayed from Options.Source (the session's log, whose
// transcript store keeps it all), or, without one, from a copy the Screen
// keeps until it builds the emulator: a log kept only in memory may drop
// its start before the emulator is built.
//
// A write that makes the emulator needed is not answered by the light
// responder at all: the emulator is built from the output before it, then
// takes the whole write and gives its answers. So every answer comes from
// one of the two, once, in order.
//
// What the replay cannot read (Source lost it: retention pruned it, or the
// store's writer fell behind) is counted in Lost, as output lost before it
// was rendered always was: the screen may be wrong, and the tools say so.

// Source holds the output a lazy Screen was written, at the offsets Write
// and Lose count from 0.
type Source interface {
	// ReadAt returns output from offset off on, at most max bytes; lost
	// is how many bytes from off on are gone (data starts at off+lost).
	// It returns no data and no loss only at the end of what it holds.
	ReadAt(off int64, max int) (data []byte, lost int64)
}

// sizeAt is the screen size from output offset at on.
type sizeAt struct {
	at         int64
	rows, cols int
}

// replayChunk is the most one read from Source takes: large, so
// fast-forward skips what scrolled off (fastforward.go).
const replayChunk = 4 << 20

// writeLight feeds p to the light responder and queues its answers; false
// means the emulator was needed for p and is built now: p is still to be
// fed to it. Called under mu.
func (s *Screen) writeLight(p []byte) bool {
	if s.maxReplay > 0 && s.off+int64(len(p)) > s.maxReplay {
		s.build() // before p: the replay holds what was written before it
		return false
	}
	l := s.lt
	l.answers = l.answers[:0]
	l.write(p)
	if l.need {
		s.build()
		return false
	}
	for _, a := range l.answers {
		s.queueReply(a)
	}
	l.answers = l.answers[:0]
	s.off += int64(len(p))
	if s.src == nil {
		s.kept = append(s.kept, p...)
	}
	return true
}

// Lose says that the next n bytes of the output are gone: the caller could
// not read them, so the Screen never sees them. Source's offsets skip them.
func (s *Screen) Lose(n int64) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.emu == nil && s.src != nil {
		s.off += n // the replay meets the gap in Source and counts it there
		return
	}
	s.lost += n
}

// Lost is how many bytes of the output never reached the emulator: the
// screen may be wrong where they would have drawn.
func (s *Screen) Lost() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lost
}

// Built reports whether the emulator exists (always, for a Screen without
// a Source).
func (s *Screen) Built() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu != nil
}

// build makes the emulator from the output written so far. Called under
// mu.
func (s *Screen) build() {
	if s.emu != nil {
		return
	}
	first := s.sizes[0]
	s.muted.Store(true)
	// After Close (a Snapshot of a closed Screen) s.wg may be in use by
	// Close's Wait: the drain goroutine then has a WaitGroup of its own.
	wg := &s.wg
	if s.closed {
		wg = new(sync.WaitGroup)
	}
	s.startEmulator(first.rows, first.cols, wg)
	s.replayOutput(s.sizes[1:])
	// The drain goroutine has read every answer the replay produced once
	// an empty write to the pipe returns; they are dropped (muted).
	_, _ = s.emu.InputPipe().Write(nil)
	s.muted.Store(false)
	s.lt, s.sizes, s.kept = nil, nil, nil
	if s.closed {
		// Built for a Snapshot after Close: the drain goroutine ends now.
		s.closeEmulator()
		wg.Wait()
	}
}

// replayOutput renders Source's bytes before s.off, applying sizes at
// their offsets. Called under mu.
func (s *Screen) replayOutput(sizes []sizeAt) {
	var off int64
	for {
		for len(sizes) > 0 && sizes[0].at <= off {
			s.resize(sizes[0].rows, sizes[0].cols)
			sizes = sizes[1:]
		}
		if off >= s.off {
			return
		}
		end := s.off
		if len(sizes) > 0 {
			end = min(end, sizes[0].at)
		}
		var data []byte
		var lost int64
		if s.src != nil {
			data, lost = s.src.ReadAt(off, int(min(end-off, replayChunk)))
		} else {
			data = s.kept[off:min(end, off+replayChunk)]
		}
		if lost > 0 {
			lost = min(lost, s.off-off)
			s.lost += lost
			off += lost
			continue // the resizes in the gap apply before what follows it
		}
		if len(data) == 0 { // Source holds no more: the rest is gone
			s.lost += s.off - off
			off = s.off
			continue
		}
		data = data[:min(int64(len(data)), end-off)]
		s.fastForward(data)
		off += int64(len(data))
	}
}
