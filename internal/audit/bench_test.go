package audit

import "testing"

// BenchmarkWrite measures one audit event, with fsync (the default) and
// without: the cost added to each start, input and exit.
func BenchmarkWrite(b *testing.B) {
	for _, bc := range []struct {
		name   string
		noSync bool
	}{{"fsync", false}, {"no-sync", true}} {
		b.Run(bc.name, func(b *testing.B) {
			l, err := Open(b.TempDir(), &Options{NoSync: bc.noSync})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			e := Event{Event: EventInput, Session: "s1", Client: "stdio", Input: "print(i*7) [enter]", PID: 4242}
			for b.Loop() {
				if err := l.Write(e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
