package session

import (
	"context"
	"sync"
)

// WaitAny waits on several sessions at once, each from the cursor of its
// reader (so "new output" is output that reader has not read), and returns
// the index of the first whose wait ends for a reason other than its
// deadline, with that wait's result. A session that exited and whose output
// the reader has read entirely is old news and ends nothing, unless every
// session is like it (then the first is returned at once). index is -1 when
// no session ended the wait (timeout or cancellation).
//
// One goroutine per session runs its Wait; WaitAny cancels the others once
// one ends and returns only after all of them did.
func WaitAny(ctx context.Context, ss []*Session, reader int, o WaitOptions) (index int, res WaitResult, err error) {
	froms := make([]int64, len(ss))
	var live []int
	for i, s := range ss {
		r, err := s.reader(reader)
		if err != nil {
			return -1, WaitResult{}, err
		}
		r.mu.Lock()
		froms[i] = r.off
		r.mu.Unlock()
		if !isDone(s.done) || froms[i] < s.log.Stats().End {
			live = append(live, i)
		}
	}
	if len(live) == 0 {
		return 0, ss[0].Wait(ctx, froms[0], WaitOptions{}), nil
	}
	opts := make([]WaitOptions, len(ss))
	for _, i := range live {
		opts[i] = o
		if o.Listen != nil {
			l := *o.Listen
			if err := ss[i].prepareListen(&l); err != nil {
				return -1, WaitResult{}, err
			}
			opts[i].Listen = &l
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type ended struct {
		i   int
		res WaitResult
	}
	ch := make(chan ended, len(live))
	var wg sync.WaitGroup
	for _, i := range live {
		wg.Go(func() { ch <- ended{i, ss[i].Wait(wctx, froms[i], opts[i])} })
	}
	index, res = -1, WaitResult{Reason: ReasonTimeout}
	for range live {
		e := <-ch
		if index >= 0 {
			continue
		}
		switch e.res.Reason {
		case ReasonTimeout:
			res.Elapsed = max(res.Elapsed, e.res.Elapsed)
		case ReasonCancelled:
			if ctx.Err() != nil {
				res = e.res
			}
		default:
			index, res = e.i, e.res
			cancel()
		}
	}
	wg.Wait()
	return index, res, nil
}
