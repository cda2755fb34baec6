package keys

// cursorKeys are the sequences that change in application cursor mode
// (DECCKM, which curses programs switch on with keypad(TRUE)): CSI becomes
// SS3, as xterm sends them.
var cursorKeys = map[string]string{
	"\x1b[A": "\x1bOA", "\x1b[B": "\x1bOB", "\x1b[C": "\x1bOC", "\x1b[D": "\x1bOD",
	"\x1b[H": "\x1bOH", "\x1b[F": "\x1bOF",
}

// Application returns the bytes for seq (from Bytes) in application cursor
// mode: arrows, Home and End change, other keys stay as they are.
func Application(seq string) string {
	if a, ok := cursorKeys[seq]; ok {
		return a
	}
	return seq
}
