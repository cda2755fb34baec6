package session

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// cooked is a terminal in its default cooked mode (stty sane).
func cooked() *unix.Termios {
	t := &unix.Termios{
		Iflag: unix.ICRNL | unix.IXON,
		Lflag: unix.ICANON | unix.ISIG | unix.IEXTEN | unix.ECHO,
	}
	t.Cc[unix.VINTR], t.Cc[unix.VQUIT], t.Cc[unix.VERASE], t.Cc[unix.VKILL] = 3, 0x1c, 0x7f, 0x15
	t.Cc[unix.VEOF], t.Cc[unix.VSTART], t.Cc[unix.VSTOP], t.Cc[unix.VSUSP] = 4, 0x11, 0x13, 0x1a
	t.Cc[unix.VREPRINT], t.Cc[unix.VWERASE], t.Cc[unix.VLNEXT] = 0x12, 0x17, 0x16
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
		modified func(*unix.Termios)
	}{
		{name: "limit fits", data: x(4095) + "\r", tail: 0},
		{name: "one past the limit", data: x(4096) + "\r", tooLong: 4096},
		{name: "unfinished line", data: "a\n" + x(10), tail: 10},
		{name: "pending counts", pending: 4000, data: x(96), tooLong: 4096},
		{name: "newline ends a line", pending: 4000, data: "\n" + x(4095), tail: 4095},
		{name: "VEOF ends a line", data: x(4000) + "\x04" + x(4000), tail: 4000},
		{name: "ctrl+c flushes", data: x(4000) + "\x03" + x(4000), tail: 4000},
		{name: "ctrl+c with NOFLSH keeps the line", data: x(4000) + "\x03" + x(100), tooLong: 4100,
			modified: func(t *unix.Termios) { t.Lflag |= unix.NOFLSH }},
		{name: "kill erases the line", data: x(4000) + "\x15" + x(4000), tail: 4000},
		{name: "erase shortens the line", data: x(4095) + "\x7f" + "y", tail: 4095},
		{name: "dropped bytes are not erased", data: x(4096) + "\x7f\x7f", tooLong: 4096},
		{name: "lnext quotes a newline", data: x(4000) + "\x16\n" + x(95), tooLong: 4096},
		{name: "IGNCR drops carriage returns", data: x(4000) + strings.Repeat("\r", 200), tail: 4000,
			modified: func(t *unix.Termios) { t.Iflag |= unix.IGNCR }},
		{name: "without ICRNL a carriage return is a byte", data: x(4095) + "\r", tooLong: 4096,
			modified: func(t *unix.Termios) { t.Iflag &^= unix.ICRNL }},
		{name: "INLCR turns newline into a byte", data: x(4095) + "\n", tooLong: 4096,
			modified: func(t *unix.Termios) { t.Iflag |= unix.INLCR }},
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
