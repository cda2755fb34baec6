package session

import (
	"context"
	"fmt"
)

// Cursor selects where a read starts: the reader's own cursor (the default),
// an absolute byte cursor, or the line after a line number.
type Cursor struct {
	Reader    int
	At        *int64 // explicit absolute cursor; the reader's cursor is left alone
	SinceLine *int64 // start after this many lines (0 = from the beginning)
}

// Result is a wait plus the output it produced.
type Result struct {
	Wait   WaitResult
	Output Output
	Reader int
}

// Read waits as o asks, then returns output from the cursor.
func (s *Session) Read(ctx context.Context, c Cursor, w WaitOptions, ro ReadOptions) (Result, error) {
	s.touch()
	r, err := s.reader(c.Reader)
	if err != nil {
		return Result{}, err
	}
	explicit := c.At != nil || c.SinceLine != nil
	r.mu.Lock()
	from, line := r.off, r.line
	r.mu.Unlock()
	switch {
	case c.At != nil:
		if *c.At < 0 {
			return Result{}, fmt.Errorf("%w: cursor must be >= 0 (use a cursor from an earlier result)", ErrBadArgs)
		}
		from, line = *c.At, -1
		if from == 0 {
			line = 0
		}
		if end := s.log.Stats().End; from > end {
			return Result{}, fmt.Errorf("%w: cursor %d is past the end of the output (%d bytes so far)", ErrBadArgs, from, end)
		}
	case c.SinceLine != nil:
		if *c.SinceLine < 0 {
			return Result{}, fmt.Errorf("%w: since_line must be >= 0", ErrBadArgs)
		}
		// Line 0 is offset 0 even after eviction, so the loss is exact;
		// a later evicted line maps to the first retained byte and the
		// loss is counted in lines.
		from, line = s.log.OffsetAfterLine(*c.SinceLine), *c.SinceLine
		if *c.SinceLine == 0 {
			from = 0
		}
	}
	w.Raw, w.Streams = ro.Raw, ro.Streams
	if w.Listen != nil {
		l := *w.Listen
		if err := s.prepareListen(&l); err != nil {
			return Result{}, err
		}
		w.Listen = &l
	}
	res := Result{Reader: c.Reader}
	res.Wait = s.Wait(ctx, from, w)
	if explicit {
		res.Output = s.readAt(from, line, ro)
		return res, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	res.Output = s.readAt(r.off, r.line, ro)
	r.off, r.line = res.Output.Next, res.Output.Line
	return res, nil
}
