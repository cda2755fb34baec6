package browsertest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// awaitPromise makes Evaluate wait for the promise the script returns.
func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

// echoJS types n letters through the open viewer, one at a time, and
// times each from the send to the moment xterm.js has parsed the output
// that carries it back: the person's keystroke-to-echo latency in the
// page, less only the paint.
const echoJS = `(async (n) => {
  const v = agentty.view(), dec = new TextDecoder(), enc = new TextEncoder(), lat = [];
  for (let i = 0; i < n; i++) {
    const ch = String.fromCharCode(97 + i %% 26);
    const t0 = performance.now();
    await new Promise((done) => {
      const h = (d) => { if (dec.decode(d).includes(ch)) { v.hooks.splice(v.hooks.indexOf(h), 1); done(); } };
      v.hooks.push(h);
      v.key(enc.encode(ch));
    });
    lat.push(performance.now() - t0);
  }
  return lat;
})(%d)`

// EchoLatency measures n keystroke-to-echo round trips in the open
// viewer, which must hold the keyboard of a session that echoes (cat in a
// PTY), and returns them sorted.
func EchoLatency(ctx context.Context, n int) ([]time.Duration, error) {
	var ms []float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(echoJS, n), &ms, awaitPromise)); err != nil {
		return nil, err
	}
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m * float64(time.Millisecond))
	}
	slices.Sort(out)
	return out, nil
}

// floodJS sends keys to the open viewer and waits for the session's exit
// event; it returns the output bytes received after the keys and the time
// from the send to the last of them parsed by xterm.js (or, for a pipe
// session, appended to the log).
const floodJS = `(async (keys) => {
  const v = agentty.view(), before = v.received;
  let last = 0;
  const h = () => { last = performance.now(); };
  v.hooks.push(h);
  const t0 = performance.now();
  v.key(new TextEncoder().encode(keys));
  await new Promise((done) => { const tick = () => v.exited ? done() : setTimeout(tick, 5); tick(); });
  await new Promise((done) => v.term ? v.term.write('', done) : done());
  v.hooks.splice(v.hooks.indexOf(h), 1);
  return [v.received - before, last - t0, v.lastReceived - t0];
})(%s)`

// FloodResult is what Flood measured.
type FloodResult struct {
	Bytes    int64         // output bytes that arrived after the keys
	Arrived  time.Duration // from the keys to the last byte's arrival
	Rendered time.Duration // from the keys to the last byte parsed by xterm.js
}

// Flood types keys into the open viewer (which holds the keyboard) and
// waits until the session exits.
func Flood(ctx context.Context, keys string) (FloodResult, error) {
	var r []float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(floodJS, Quote(keys)), &r, awaitPromise)); err != nil {
		return FloodResult{}, err
	}
	if len(r) != 3 {
		return FloodResult{}, fmt.Errorf("flood measured %v", r)
	}
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	return FloodResult{Bytes: int64(r[0]), Rendered: ms(r[1]), Arrived: ms(r[2])}, nil
}

// Quantile is the q-quantile of sorted durations.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}
