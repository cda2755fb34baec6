package nodebackend

import (
	"bytes"
	"strings"
	"sync"
)

// BoundedBuf keeps the first 4 KiB written to it: enough of a stderr to
// say why something failed, never more however much is written.
type BoundedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer // guarded by mu
}

func (b *BoundedBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 4096 - b.b.Len(); room > 0 {
		b.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// String is what was kept, trimmed of surrounding space.
func (b *BoundedBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(b.b.String())
}
