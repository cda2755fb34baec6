package termtext

// IsPlain reports whether b is printable ASCII and tabs only: text that
// Clean and Raw return unchanged. Scanners (grep over gigabytes of
// transcript) use it to skip cleaning and copying lines that need neither.
func IsPlain(b []byte) bool {
	for _, c := range b {
		if c >= 0x7f || c < 0x20 && c != '\t' {
			return false
		}
	}
	return true
}
