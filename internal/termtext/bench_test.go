package termtext

import (
	"fmt"
	"strings"
	"testing"
)

// benchInput repeats line until it is at least 1 MiB.
func benchInput(line func(i int) string) []byte {
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		sb.WriteString(line(i))
	}
	return []byte(sb.String())
}

func BenchmarkClean(b *testing.B) {
	cases := []struct {
		name string
		in   []byte
	}{
		{"plain", benchInput(func(i int) string {
			return fmt.Sprintf("%06d INFO server: handled request path=/api/v1/items status=200\r\n", i)
		})},
		{"ansi", benchInput(func(i int) string {
			// Like `ls --color`: SGR around every word.
			return fmt.Sprintf("\x1b[0m\x1b[01;34mdir%d\x1b[0m  \x1b[01;32mrun.sh\x1b[0m  \x1b[00;31marchive.tar\x1b[0m  notes.txt\r\n", i)
		})},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				Clean(c.in, true)
			}
		})
	}
}
