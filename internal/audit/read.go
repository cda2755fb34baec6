package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// ReadFile returns the events of an audit log file in order. Every line
// must be one complete JSON event: a torn or foreign line is an error that
// names it, so a reader never silently skips what was recorded.
func ReadFile(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("%s line %d (%.80q): %w", path, n, sc.Text(), err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
