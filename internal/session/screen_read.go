package session

// read_screen: wait on the rendered screen, then copy it.

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/screen"
)

// ScreenOptions say which screen to return and when.
type ScreenOptions struct {
	Reader      int  // whose last screen ChangedOnly compares with
	ChangedOnly bool // report the rows changed since this reader's last screen
	Scrollback  int  // lines above the screen to include (main screen only)
	// Styles adds each visible row's runs of colours and attributes; a
	// row whose style changed then counts as changed for ChangedOnly.
	Styles bool
	// Wait: Until matches the screen text, Settle is "the screen has not
	// changed for this long", Timeout bounds it; exit ends it too, and
	// awaiting input unless IgnoreInput.
	Wait WaitOptions
}

// ScreenResult is a rendered screen and why the wait ended.
type ScreenResult struct {
	Snapshot screen.Snapshot
	Changed  []int // with ChangedOnly: rows whose text (and with Styles, style) differs from the reader's last screen
	Wait     WaitResult
	Lost     int64 // output evicted before it was rendered: the screen may be wrong
	Pending  int64 // output not rendered yet when the wait for the feeder gave up
}

// Screen waits as o asks and returns the screen.
func (s *Session) Screen(ctx context.Context, o ScreenOptions) (ScreenResult, error) {
	if s.Mode != record.ModePTY {
		return ScreenResult{}, &NotPTYError{ID: s.ID, Op: OpScreen}
	}
	if s.scr == nil {
		return ScreenResult{}, fmt.Errorf("%w: screens are turned off on this server", ErrNoScreen)
	}
	if o.Scrollback < 0 {
		return ScreenResult{}, fmt.Errorf("%w: scrollback must be >= 0", ErrBadArgs)
	}
	if _, err := s.reader(o.Reader); err != nil {
		return ScreenResult{}, err
	}
	s.touch()
	start := time.Now()
	res := s.waitScreen(ctx, o, start)
	res.Wait.Elapsed = time.Since(start)
	if res.Wait.State == "" {
		st, p := s.State()
		res.Wait.State, res.Wait.Detail = st, p.Detail
	}
	s.mu.Lock()
	ids := s.readerIDs()
	s.mu.Unlock()
	f := s.scr
	res.Lost = f.scr.Lost()
	f.mu.Lock()
	last, now := f.last[o.Reader], lastScreen{lines: res.Snapshot.Lines, keys: rowKeys(res.Snapshot)}
	if o.ChangedOnly {
		before, after := last.lines, now.lines
		if now.keys != nil {
			before, after = last.keys, now.keys
			if before == nil { // the last read had no styles: compare with its text
				before = last.lines
			}
		}
		res.Changed = screen.Changed(before, after)
	}
	f.last[o.Reader] = now
	for id := range f.last {
		if !slices.Contains(ids, id) { // the reader was unregistered
			delete(f.last, id)
		}
	}
	f.mu.Unlock()
	return res, nil
}

// snapshot renders everything the log holds now and copies the screen.
func (s *Session) snapshot(ctx context.Context, o ScreenOptions) (screen.Snapshot, int64) {
	pending := s.scr.syncTo(ctx, s.log.Stats().End, time.Now().Add(syncWait))
	if o.Styles {
		return s.scr.scr.StyledSnapshot(o.Scrollback), pending
	}
	return s.scr.scr.Snapshot(o.Scrollback), pending
}

// lastScreen is a reader's last screen as ChangedOnly compares it.
type lastScreen struct {
	lines []string // the rows' text
	keys  []string // with Styles: rowKeys; nil after a plain read
}

// rowKeys is what ChangedOnly compares per row when styles are asked for:
// the text, and for a styled row its runs too (nil without styles). A
// styled read after a plain one compares with that read's text, so its
// styled rows count as changed once: reported, never missed.
func rowKeys(sn screen.Snapshot) []string {
	if sn.Styles == nil {
		return nil
	}
	keys := slices.Clone(sn.Lines)
	for y, runs := range sn.Styles {
		if len(runs) > 0 {
			keys[y] += "\x00" + fmt.Sprint(runs)
		}
	}
	return keys
}

func (s *Session) waitScreen(ctx context.Context, o ScreenOptions, start time.Time) ScreenResult {
	w := o.Wait
	w.Timeout = min(w.Timeout, MaxWait)
	matched := func(sn screen.Snapshot) (string, bool) {
		if w.Until == nil {
			return "", false
		}
		return findIn(w.Until, sn.Text())
	}
	var res ScreenResult
	res.Snapshot, res.Pending = s.snapshot(ctx, o)
	if m, ok := matched(res.Snapshot); ok {
		res.Wait = WaitResult{Reason: ReasonMatched, Match: m}
		return res
	}
	if w.Timeout <= 0 {
		res.Wait = WaitResult{Reason: ReasonNoWait}
		return res
	}
	deadline := start.Add(w.Timeout)
	// The screen last changed when output last arrived, which may be
	// before this call: a screen that is already still settles at once.
	// A program that has drawn nothing yet has no screen to settle.
	lastChange := start
	drawn := false
	if lw := s.log.Stats().LastWrite; lw > 0 {
		lastChange, drawn = time.Unix(0, lw), true
	}
	version := res.Snapshot.Version
	probeAt, probeDelay := start, minProbe
	timer := time.NewTimer(w.Timeout)
	defer timer.Stop()
	for {
		changed := s.log.Changed()
		exited := isDone(s.done)
		res.Snapshot, res.Pending = s.snapshot(ctx, o)
		now := time.Now()
		if res.Snapshot.Version != version {
			version, lastChange, drawn = res.Snapshot.Version, now, true
			probeAt, probeDelay = now.Add(minProbe), minProbe
		}
		if m, ok := matched(res.Snapshot); ok {
			res.Wait = WaitResult{Reason: ReasonMatched, Match: m}
			return res
		}
		if exited {
			res.Wait = WaitResult{Reason: ReasonExited, State: record.StateExited}
			return res
		}
		next := deadline
		if !w.IgnoreInput {
			if !now.Before(probeAt) {
				if p, ok := s.awaitingAnswered(now); ok {
					// Quiet may have appended the last bytes: render them.
					res.Snapshot, res.Pending = s.snapshot(ctx, o)
					res.Wait = WaitResult{Reason: ReasonAwaiting, State: stateOf(p.State), Detail: p.Detail}
					if m, ok := matched(res.Snapshot); ok {
						res.Wait = WaitResult{Reason: ReasonMatched, Match: m}
					}
					return res
				}
				probeAt = now.Add(probeDelay)
				probeDelay = min(probeDelay*2, maxProbe)
			}
			next = probeAt
		}
		if w.Settle > 0 && drawn {
			settleAt := lastChange.Add(w.Settle)
			if !now.Before(settleAt) {
				res.Wait = WaitResult{Reason: ReasonSettled}
				return res
			}
			next = earliest(next, settleAt)
		}
		if !now.Before(deadline) {
			res.Wait = WaitResult{Reason: ReasonTimeout}
			return res
		}
		timer.Reset(earliest(next, deadline).Sub(now))
		select {
		case <-changed:
		case <-s.done:
		case <-timer.C:
		case <-ctx.Done():
			res.Wait = WaitResult{Reason: ReasonCancelled}
			return res
		}
	}
}

func findIn(re *regexp.Regexp, text string) (string, bool) {
	loc := re.FindStringIndex(text)
	if loc == nil {
		return "", false
	}
	return text[loc[0]:loc[1]], true
}
