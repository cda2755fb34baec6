package outlog

import (
	"bytes"
	"fmt"
	"testing"
)

// TestMemory_AppendShared checks what the transcript store relies on to
// queue the log's own bytes instead of a copy: the slices hold exactly
// what was appended, in order, and keep holding it after the first block
// grew (reallocated), after later appends, and after eviction; contiguous
// appends extend one slice per block; the newline count is exact.
func TestMemory_AppendShared(t *testing.T) {
	cases := []struct {
		name  string
		sizes []int // append sizes, cycled
		total int
	}{
		{"small appends, the first block growing", []int{1, 7, 100, 3}, 400 << 10},
		{"pump-sized reads", []int{65536, 4096, 61440, 65536}, 1 << 20},
		{"odd sizes across blocks", []int{65537, 12345, 99999, 1}, 3 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := NewMemory(128 << 10) // evicts most of what is appended
			var want bytes.Buffer
			var shared [][]byte
			var nl int64
			for i := 0; want.Len() < c.total; i++ {
				p := fmt.Appendf(nil, "%08d\n", i)
				p = bytes.Repeat(p, c.sizes[i%len(c.sizes)]/len(p)+1)[:c.sizes[i%len(c.sizes)]]
				want.Write(p)
				n, s := m.AppendShared(Stdout, p, shared)
				for k := range p {
					p[k] = 'X' // the caller's buffer is reused, as the pump's is
				}
				shared = s
				nl += n
			}
			got := bytes.Join(shared, nil)
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("shared slices hold %d bytes, differing from the %d appended", len(got), want.Len())
			}
			if wantNL := int64(bytes.Count(want.Bytes(), []byte{'\n'})); nl != wantNL || m.Stats().Lines != wantNL {
				t.Fatalf("newlines: AppendShared counted %d, log %d, want %d", nl, m.Stats().Lines, wantNL)
			}
			if st := m.Stats(); st.Start == 0 {
				t.Fatalf("nothing was evicted (stats %+v): the case does not test eviction", st)
			}
			// One slice per block the bytes touched, plus one per growth of
			// the first block (it starts small and is grown by append):
			// never one per append.
			if maxSlices := want.Len()/blockSize + 2 + 32; len(shared) > maxSlices {
				t.Fatalf("%d slices for %d bytes, want at most %d", len(shared), want.Len(), maxSlices)
			}
			for i, s := range shared {
				if cap(s) != len(s) {
					t.Fatalf("slice %d: cap %d > len %d lets a caller write into the log", i, cap(s), len(s))
				}
			}
		})
	}
}

// TestMemory_AppendSharedClosed: a closed log takes nothing and hands out
// nothing.
func TestMemory_AppendSharedClosed(t *testing.T) {
	m := NewMemory(0)
	m.CloseWrite()
	nl, s := m.AppendShared(Stdout, []byte("a\nb\n"), nil)
	if nl != 0 || len(s) != 0 || m.Stats().End != 0 {
		t.Fatalf("closed log: nl=%d slices=%d end=%d", nl, len(s), m.Stats().End)
	}
}
