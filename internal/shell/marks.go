package shell

import (
	"bytes"
	"net/url"
	"regexp"
	"strconv"
)

// markKind is which OSC 133 mark was seen.
type markKind byte

const (
	markC markKind = 'C' // a command started: its output follows
	markD markKind = 'D' // the prompt: the last command ended (status, cwd)
)

// mark is one of this shell's marks found in the raw output.
type mark struct {
	kind       markKind
	id         int    // agentty command id (0: a prompt not after an agentty command)
	status     int    // D: exit status
	cwd        string // D: working directory from the OSC 7 after it
	start, end int64  // absolute offsets of the mark's bytes
}

// markRE builds the regex of one shell's marks. The D mark and the OSC 7
// after it come from one printf, so they are matched together. A status
// may be negative: PowerShell and cmd.exe show an NTSTATUS exit code
// (0xC000013A after Ctrl+C) as a negative 32-bit number.
func markRE(nonce string) *regexp.Regexp {
	n := regexp.QuoteMeta(nonce)
	return regexp.MustCompile(`\x1b\]133;C;aid=` + n + `\.(\d+)\x07|\x1b\]133;D;(-?\d+);aid=` + n + `\.(\d+)\x07\x1b\]7;file://[^/\x07\x1b]*([^\x07\x1b]*)\x07`)
}

// maxMarkLen bounds how much unterminated escape text is held back at the
// end of a scan in case a mark is split between two writes.
const maxMarkLen = 8 << 10

// findMarks returns the marks in data (which starts at absolute offset at)
// and how many bytes were fully scanned; bytes after that may hold the
// start of a mark that is not complete yet.
func findMarks(re *regexp.Regexp, data []byte, at int64, final bool) ([]mark, int) {
	var out []mark
	scanned := len(data)
	for _, m := range re.FindAllSubmatchIndex(data, -1) {
		mk := mark{start: at + int64(m[0]), end: at + int64(m[1])}
		if m[2] >= 0 {
			mk.kind = markC
			mk.id, _ = strconv.Atoi(string(data[m[2]:m[3]]))
		} else {
			mk.kind = markD
			mk.status, _ = strconv.Atoi(string(data[m[4]:m[5]]))
			mk.id, _ = strconv.Atoi(string(data[m[6]:m[7]]))
			p := string(data[m[8]:m[9]])
			if u, err := url.PathUnescape(p); err == nil {
				p = u
			}
			mk.cwd = p
		}
		out = append(out, mk)
	}
	if final {
		return out, scanned
	}
	// Hold back an escape sequence that has not ended yet (a mark may be
	// split across writes); one that is too long to be ours is let go.
	last := 0
	if len(out) > 0 {
		last = int(out[len(out)-1].end - at)
	}
	hold := -1
	if i := bytes.LastIndexByte(data[last:], 0x1b); i >= 0 && !bytes.Contains(data[last+i:], []byte{0x07}) {
		hold = last + i
	}
	// A D mark is followed by its OSC 7 from the same printf; until both
	// are here, hold back from the D.
	if j := bytes.Index(data[last:], []byte("\x1b]133;D;")); j >= 0 && (hold < 0 || last+j < hold) {
		hold = last + j
	}
	if hold >= 0 && len(data)-hold < maxMarkLen {
		scanned = hold
	}
	return out, scanned
}
