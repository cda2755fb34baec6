package inputwait

// The parsers below read Linux's text formats (/proc files, a remote
// probe's answer) from byte slices without allocating.

// nextField returns the next space/newline separated token of b from *i.
func nextField(b []byte, i *int) []byte {
	for *i < len(b) && (b[*i] == ' ' || b[*i] == '\n' || b[*i] == '\t') {
		*i++
	}
	start := *i
	for *i < len(b) && b[*i] != ' ' && b[*i] != '\n' && b[*i] != '\t' {
		*i++
	}
	return b[start:*i]
}

// parseUint parses decimal, or hex with a 0x prefix.
func parseUint(tok []byte) (uint64, bool) {
	if len(tok) > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X') {
		return parseBase(tok[2:], 16)
	}
	return parseBase(tok, 10)
}

// parseBase parses an unsigned number in base 10 or 16 without prefix.
func parseBase(tok []byte, base uint64) (uint64, bool) {
	if len(tok) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range tok {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		v = v*base + d
	}
	return v, true
}

// sysState is the syscall a task is blocked in, from
// /proc/PID/task/TID/syscall here or a remote probe's answer.
type sysState struct {
	nr   int       // -1: blocked, but not inside a syscall
	args [6]uint64 // syscall arguments
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func hasPrefix(b []byte, p string) bool {
	return len(b) >= len(p) && string(b[:len(p)]) == p
}
