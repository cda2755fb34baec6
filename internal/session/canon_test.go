package session

import (
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/ttymode"
)

// cooked is a terminal in its default cooked mode (stty sane).
func cooked() *ttymode.Modes {
	t := &ttymode.Modes{ICRNL: true, IXON: true, Canonical: true, Signals: true, Extended: true, Echo: true}
	c := &t.Chars
	c[ttymode.VINTR], c[ttymode.VQUIT], c[ttymode.VERASE], c[ttymode.VKILL] = 3, 0x1c, 0x7f, 0x15
	c[ttymode.VEOF], c[ttymode.VSTART], c[ttymode.VSTOP], c[ttymode.VSUSP] = 4, 0x11, 0x13, 0x1a
	c[ttymode.VREPRINT], c[ttymode.VWERASE], c[ttymode.VLNEXT] = 0x12, 0x17, 0x16
	return t
}

func TestScanCanon_LineLengths(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		name     string
		pending  int
		data     string
		tail     int // unfinished line after data
		tooLong  int // length reported for a refused line; 0 = accepted
		modified func(*ttymode.Modes)
	}{
		{name: "limit fits", data: x(4095) + "\r", tail: 0},
		{name: "one past the limit", data: x(4096) + "\r", tooLong: 4096},
		{name: "unfinished line", data: "a\n" + x(10), tail: 10},
		{name: "pending counts", pending: 4000, data: x(96), tooLong: 4096},
		{name: "newline ends a line", pending: 4000, data: "\n" + x(4095), tail: 4095},
		{name: "VEOF ends a line", data: x(4000) + "\x04" + x(4000), tail: 4000},
		{name: "ctrl+c flushes", data: x(4000) + "\x03" + x(4000), tail: 4000},
		{name: "ctrl+c with NOFLSH keeps the line", data: x(4000) + "\x03" + x(100), tooLong: 4100,
			modified: func(t *ttymode.Modes) { t.NoFlush = true }},
		{name: "kill erases the line", data: x(4000) + "\x15" + x(4000), tail: 4000},
		{name: "erase shortens the line", data: x(4095) + "\x7f" + "y", tail: 4095},
		{name: "dropped bytes are not erased", data: x(4096) + "\x7f\x7f", tooLong: 4096},
		{name: "lnext quotes a newline", data: x(4000) + "\x16\n" + x(95), tooLong: 4096},
		{name: "IGNCR drops carriage returns", data: x(4000) + strings.Repeat("\r", 200), tail: 4000,
			modified: func(t *ttymode.Modes) { t.IgnCR = true }},
		{name: "without ICRNL a carriage return is a byte", data: x(4095) + "\r", tooLong: 4096,
			modified: func(t *ttymode.Modes) { t.ICRNL = false }},
		{name: "INLCR turns newline into a byte", data: x(4095) + "\n", tooLong: 4096,
			modified: func(t *ttymode.Modes) { t.INLCR = true }},
		{name: "XON and XOFF are not input", data: x(4095) + "\x11\x13\r", tail: 0},
		{name: "the whole refused line is measured", data: "a\n" + x(5000) + "\nb", tooLong: 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := cooked()
			if tc.modified != nil {
				tc.modified(term)
			}
			tail, long := scanCanon(term, tc.pending, tc.data)
			switch {
			case tc.tooLong == 0 && long != nil:
				t.Fatalf("refused a line of %d bytes", long.length)
			case tc.tooLong != 0 && long == nil:
				t.Fatalf("accepted; tail %d", tail)
			case long != nil && (long.length != tc.tooLong || long.earlier != tc.pending):
				t.Fatalf("refused line %+v, want length %d earlier %d", *long, tc.tooLong, tc.pending)
			case long == nil && tail != tc.tail:
				t.Fatalf("tail %d, want %d", tail, tc.tail)
			}
		})
	}
}

// BenchmarkScanCanon measures the check send_input makes before typing
// into a terminal in canonical mode: 1 MiB of 100-byte lines.
func BenchmarkScanCanon(b *testing.B) {
	data := strings.Repeat(strings.Repeat("x", 99)+"\n", 1<<20/100)
	t := cooked()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, long := scanCanon(t, 0, data); long != nil {
			b.Fatal("refused")
		}
	}
}
