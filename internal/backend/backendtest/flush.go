package backendtest

import "errors"

// errNoFlush is FlushInput's answer without Options.Flush.
var errNoFlush = errors.New("backendtest: no input flush scripted")

// FlushInput runs Options.Flush, the scripted counterpart of a local PTY
// taking in every byte written so far.
func (p *Process) FlushInput() error {
	if p.opts.Flush == nil {
		return errNoFlush
	}
	return p.opts.Flush()
}
