package mcpserver

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/re2"
	"github.com/agentty/agentty/internal/session"
)

// Events a wait can return on (return_on).
const (
	onMatch  = "match"
	onInput  = "input"
	onSettle = "settle"
	onExit   = "exit"
)

// returnOn parses return_on against the events a tool knows; an empty list
// means all of them.
func returnOn(list []string, known ...string) (map[string]bool, error) {
	on := map[string]bool{}
	if list == nil {
		for _, k := range known {
			on[k] = true
		}
		return on, nil
	}
	for _, e := range list {
		if !slices.Contains(known, e) {
			return nil, fmt.Errorf("%w: return_on: unknown event %q; use %s", session.ErrBadArgs, e, strings.Join(known, ", "))
		}
		on[e] = true
	}
	return on, nil
}

// maxEncodedOutput bounds the JSON-escaped output of one reply: a long
// output is sent once (bulk.go), and the whole reply must stay under
// MaxReply.
const maxEncodedOutput = 8 << 20

// defaults of the wait parameters per tool.
type waitDefaults struct{ timeout, settle time.Duration }

var (
	startWaits = waitDefaults{timeout: 10 * time.Second, settle: time.Second}
	sendWaits  = waitDefaults{timeout: 10 * time.Second, settle: time.Second}
	readWaits  = waitDefaults{timeout: 5 * time.Second, settle: 500 * time.Millisecond}
)

func (w WaitParams) options(d waitDefaults) (session.WaitOptions, error) {
	o := session.WaitOptions{Timeout: d.timeout, Settle: d.settle}
	if w.TimeoutMs != nil {
		if *w.TimeoutMs < 0 {
			return o, fmt.Errorf("%w: timeout_ms must be >= 0", session.ErrBadArgs)
		}
		o.Timeout = min(time.Duration(*w.TimeoutMs)*time.Millisecond, session.MaxWait)
	}
	if w.SettleMs != nil {
		if *w.SettleMs < 0 {
			return o, fmt.Errorf("%w: settle_ms must be >= 0", session.ErrBadArgs)
		}
		o.Settle = time.Duration(*w.SettleMs) * time.Millisecond
	}
	if w.Until != "" {
		// Agents think in lines: ^ and $ match at line boundaries.
		re, err := re2.Compile("(?m)" + w.Until)
		if err != nil {
			return o, fmt.Errorf("%w: until is not a valid RE2 regex: %v", session.ErrBadArgs, err)
		}
		o.Until = re
	}
	on, err := returnOn(w.ReturnOn, onMatch, onInput, onSettle, onExit, onListen)
	if err != nil {
		return o, err
	}
	if o.Listen, err = w.listenWait(on); err != nil {
		return o, err
	}
	if o.Listen != nil && w.SettleMs == nil && w.ReturnOn == nil {
		on[onSettle] = false // a server starting up may pause before it listens
	}
	switch {
	case o.Until != nil && !on[onMatch]:
		return o, fmt.Errorf("%w: until is given but return_on leaves out match; add \"match\"", session.ErrBadArgs)
	case w.SettleMs != nil && *w.SettleMs > 0 && !on[onSettle]:
		return o, fmt.Errorf("%w: settle_ms is given but return_on leaves out settle; add \"settle\" or drop settle_ms", session.ErrBadArgs)
	}
	if !on[onSettle] {
		o.Settle = 0
	}
	o.IgnoreInput = !on[onInput]
	return o, nil
}

func (r ReadParams) options() (session.ReadOptions, error) {
	o := session.ReadOptions{MaxBytes: r.MaxBytes, MaxLines: r.MaxLines, Overflow: r.Overflow, MaxEncoded: maxEncodedOutput}
	if r.MaxBytes < 0 || r.MaxBytes > session.MaxBytesCap {
		return o, fmt.Errorf("%w: max_bytes must be between 1 and %d", session.ErrBadArgs, session.MaxBytesCap)
	}
	if r.MaxLines < 0 {
		return o, fmt.Errorf("%w: max_lines must be >= 0", session.ErrBadArgs)
	}
	switch r.Overflow {
	case "", session.OverflowHeadTail, session.OverflowPage, session.OverflowTail:
	default:
		return o, fmt.Errorf("%w: overflow must be head_tail, tail or page, not %s", session.ErrBadArgs, excerpt.Q(r.Overflow))
	}
	o.Raw = r.StripANSI != nil && !*r.StripANSI
	s, ok := outlog.ParseStream(r.Stream)
	if !ok {
		return o, fmt.Errorf("%w: stream must be stdout, stderr or both, not %s", session.ErrBadArgs, excerpt.Q(r.Stream))
	}
	o.Streams = s
	return o, nil
}

// waitRead turns a waiting tool's wait and read parameters into the
// engine's options, with the gate's read limit applied: the preamble of
// every tool that waits and then returns output.
func (t *tools) waitRead(w WaitParams, d waitDefaults, r ReadParams) (session.WaitOptions, session.ReadOptions, error) {
	wo, err := w.options(d)
	if err != nil {
		return wo, session.ReadOptions{}, err
	}
	ro, err := r.options()
	if err != nil {
		return wo, ro, err
	}
	return wo, ro, t.gate.ReadLimit(&ro, r.MaxBytes)
}
