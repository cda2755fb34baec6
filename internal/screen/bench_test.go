package screen

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkWrite measures how fast the emulator takes in output of
// different shapes, in bytes of program output per second, fed in small
// chunks (a program printing slowly) and in 1 MiB chunks (the session's
// feeder catching up on a flood; scrolled-off text is fast-forwarded).
func BenchmarkWrite(b *testing.B) {
	var sgr bytes.Buffer
	for i := 0; sgr.Len() < 1<<20; i++ {
		fmt.Fprintf(&sgr, "\x1b[1;3%dmword%d\x1b[0m ", i%8, i)
		if i%12 == 11 {
			sgr.WriteString("\r\n")
		}
	}
	var redraw bytes.Buffer
	for i := 0; redraw.Len() < 1<<20; i++ {
		fmt.Fprintf(&redraw, "\x1b[%d;1H\x1b[7m%-78s\x1b[0m", i%24+1, fmt.Sprintf("row %d of a full-screen redraw", i))
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"text_lines", bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog 0123456789\r\n"), 1<<20/56)},
		{"short_lines", bytes.Repeat([]byte("y\r\n"), 1<<20/3)},
		{"sgr_words", sgr.Bytes()},
		{"cursor_redraw", redraw.Bytes()},
		{"utf8_lines", bytes.Repeat([]byte("日本語のテキスト, naïve café — ascii words too ✓\r\n"), 1<<20/62)},
	}
	for _, tc := range cases {
		for _, chunk := range []int{4 << 10, 1 << 20} {
			b.Run(fmt.Sprintf("%s/chunk=%dKiB", tc.name, chunk>>10), func(b *testing.B) {
				s, err := New(Options{Rows: 24, Cols: 80})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				b.SetBytes(int64(len(tc.data)))
				for b.Loop() {
					for p := tc.data; len(p) > 0; {
						n := min(len(p), chunk)
						s.Write(p[:n])
						p = p[n:]
					}
				}
			})
		}
	}
}

// BenchmarkSnapshot measures copying the screen out, as read_screen does.
func BenchmarkSnapshot(b *testing.B) {
	for _, sz := range []struct{ rows, cols int }{{24, 80}, {60, 200}} {
		b.Run(fmt.Sprintf("%dx%d", sz.cols, sz.rows), func(b *testing.B) {
			s, err := New(Options{Rows: sz.rows, Cols: sz.cols})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for i := range sz.rows {
				fmt.Fprintf(writer{s}, "\x1b[%d;1H%s", i+1, bytes.Repeat([]byte("x"), sz.cols-1))
			}
			for b.Loop() {
				if sn := s.Snapshot(0); len(sn.Lines) != sz.rows {
					b.Fatalf("%d lines", len(sn.Lines))
				}
			}
		})
	}
}

// nullSource is a Source for a lazy Screen that is never built.
type nullSource struct{}

func (nullSource) ReadAt(int64, int) ([]byte, int64) { return nil, 0 }

// BenchmarkWriteLight measures the light responder alone: a lazy Screen
// taking output it never needs the emulator for (plain text and colours).
func BenchmarkWriteLight(b *testing.B) {
	cases := []struct {
		name string
		data []byte
	}{
		{"text_lines", bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog 0123456789\r\n"), 1<<20/56)},
		{"sgr_lines", bytes.Repeat([]byte("\x1b[1;32mok\x1b[0m step 12 of 40: compiling module\r\n"), 1<<20/48)},
		{"utf8_lines", bytes.Repeat([]byte("日本語のテキスト, naïve café — ascii words too ✓\r\n"), 1<<20/62)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			s, err := New(Options{Rows: 24, Cols: 80, Lazy: true, Source: nullSource{}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.SetBytes(int64(len(tc.data)))
			for b.Loop() {
				s.Write(tc.data)
			}
			if s.Built() {
				b.Fatal("the emulator was built")
			}
		})
	}
}

// BenchmarkBuild measures the first read of a lazy screen: building the
// emulator by replaying 64 MiB of output (the most a session replays)
// from its Source, plain lines and lines with colours.
func BenchmarkBuild(b *testing.B) {
	const size = 64 << 20
	for _, tc := range []struct {
		name string
		line string
	}{
		{"text_lines", "the quick brown fox jumps over the lazy dog 0123456789\r\n"},
		{"sgr_lines", "\x1b[1;32mok\x1b[0m step 12 of 40: compiling module\r\n"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			src := &memSource{data: bytes.Repeat([]byte(tc.line), size/len(tc.line))}
			b.SetBytes(int64(len(src.data)))
			for b.Loop() {
				s, err := New(Options{Rows: 40, Cols: 120, Lazy: true, Source: src})
				if err != nil {
					b.Fatal(err)
				}
				s.Write(src.data) // light: nothing here needs the emulator
				if sn := s.Snapshot(0); s.Lost() != 0 || sn.Written != int64(len(src.data)) {
					b.Fatalf("lost %d, written %d", s.Lost(), sn.Written)
				}
				s.Close()
			}
		})
	}
}
