package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProgressInterval is the least time between two progress notifications of
// one call: at most four a second, enough for a human or an agent to see a
// long wait move, few enough to cost nothing next to the output itself.
const ProgressInterval = 250 * time.Millisecond

// ProgressSource is what a progress reporter watches while a call waits: a
// growing output whose newest line is worth showing. *session.Session
// implements it; anything else that produces output (a one-shot command's
// capture, say) can too.
type ProgressSource interface {
	// OutputChanged returns a channel closed at the next output or at the
	// end of output.
	OutputChanged() <-chan struct{}
	// OutputEnd is the number of bytes produced so far; it never decreases.
	OutputEnd() int64
	// LastLine is the newest non-blank line of clean output.
	LastLine() string
}

// ReportProgress sends notifications/progress for req while the caller
// waits, if the client put a progress token on the request; otherwise it
// does nothing. Each notification carries the newest output line as its
// message and the bytes produced so far as its (strictly increasing)
// progress, at most one per ProgressInterval, only when there is new output.
//
// The returned stop must be called when the wait ends, before the tool
// returns its result (so no notification follows the response); it waits
// for the reporter goroutine to exit and is safe to call more than once.
//
//	stop := ReportProgress(ctx, req, s)
//	r, err := s.Read(ctx, ...)
//	stop()
func ReportProgress(ctx context.Context, req *mcp.CallToolRequest, src ProgressSource) (stop func()) {
	if req == nil || req.Session == nil || req.Params == nil || src == nil {
		return func() {}
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		p := progressReporter{src: src, notify: func(end int64, line string) {
			// Best effort: a client that went away is noticed by the wait
			// itself through ctx.
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(end), Message: line})
		}}
		p.run(ctx, src.OutputEnd())
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}
}

// progressReporter is the loop behind ReportProgress, apart from the MCP
// session so its pacing is testable on its own.
type progressReporter struct {
	src    ProgressSource
	notify func(end int64, line string)
}

// run reports output produced after start until ctx ends. Invariant: one
// notification per ProgressInterval at most, and only for output newer than
// the last one reported.
func (p *progressReporter) run(ctx context.Context, start int64) {
	reported := start
	var last time.Time
	timer := time.NewTimer(0)
	<-timer.C
	defer timer.Stop()
	for {
		changed := p.src.OutputChanged()
		if end := p.src.OutputEnd(); end > reported {
			if wait := ProgressInterval - time.Since(last); !last.IsZero() && wait > 0 {
				timer.Reset(wait)
				select {
				case <-ctx.Done():
					return
				case <-timer.C:
				}
				continue // more may have arrived meanwhile: report the newest
			}
			line := p.src.LastLine()
			reported, last = end, time.Now()
			p.notify(end, line)
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
			if p.src.OutputEnd() == reported {
				// Output ended (the channel stays closed): nothing more
				// will come, so wait only for the call to end.
				<-ctx.Done()
				return
			}
		}
	}
}
