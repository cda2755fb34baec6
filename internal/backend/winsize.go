package backend

import "sync"

// WinSize is a remote PTY's size as agentty last set it: a remote process
// cannot ask its terminal, so it remembers what Resize sent. The zero
// value is 0x0.
type WinSize struct {
	mu         sync.Mutex
	rows, cols int // guarded by mu
}

// NewWinSize returns a size set to rows x cols.
func NewWinSize(rows, cols int) *WinSize { return &WinSize{rows: rows, cols: cols} }

// Set records a size the remote accepted.
func (w *WinSize) Set(rows, cols int) {
	w.mu.Lock()
	w.rows, w.cols = rows, cols
	w.mu.Unlock()
}

// Get returns the last size set.
func (w *WinSize) Get() (rows, cols int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rows, w.cols
}
