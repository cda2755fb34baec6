package darwinproc

// maxList bounds a listing's buffer (4 MiB: half a million descriptors or
// threads, far above any process's).
const maxList = 1 << 22

// grow calls fetch, which fills a buffer and says how many bytes it wrote,
// with a larger buffer each time the answer fills it: a full buffer may
// have cut the list short. guess is the expected number of entries of
// entry bytes each; the answer is cut to whole entries.
func grow(fetch func([]byte) (int, error), entry, guess int) ([]byte, error) {
	n := max(guess, 16) * entry
	for {
		buf := make([]byte, n)
		got, err := fetch(buf)
		if err != nil {
			return nil, err
		}
		got = min(max(got, 0), len(buf))
		if got < len(buf) || n >= maxList {
			return buf[:got-got%entry], nil
		}
		n = min(n*4, maxList)
	}
}
