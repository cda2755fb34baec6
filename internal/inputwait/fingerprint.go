package inputwait

// fingerprint folds the order-independent per-thread sum with the group
// identity and size, so membership changes show even when counters do not.
func fingerprint(sum uint64, pgid, members int) uint64 {
	return mix3(sum, uint64(pgid), uint64(members))
}

// mix3 is FNV-1a over three little-endian 64-bit words.
func mix3(a, b, c uint64) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for _, w := range [3]uint64{a, b, c} {
		for i := 0; i < 8; i++ {
			h ^= w & 0xff
			h *= prime
			w >>= 8
		}
	}
	return h
}
