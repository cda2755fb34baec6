//go:build linux

package proctree

import "testing"

// BenchmarkDescendants measures the per-call cost of finding a small marked
// tree; the marker scan reads every process's environment, so it grows with
// the number of processes on the machine.
func BenchmarkDescendants(b *testing.B) {
	c := startMarked(b, "sleep 1000 & setsid sleep 1000 & wait")
	waitTree(b, c.pid(), c.entry, "sh", "sleep", "sleep")
	for _, bm := range []struct{ name, marker string }{
		{"marker", c.entry},
		{"treeOnly", ""},
	} {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Descendants(c.pid(), bm.marker); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSpawnerDo(b *testing.B) {
	sp := NewSpawner()
	defer sp.Close()
	for b.Loop() {
		sp.Do(func() {})
	}
}
