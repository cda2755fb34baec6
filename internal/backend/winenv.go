package backend

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"
)

// windowsEnvBlock builds the environment block CreateProcess takes with
// CREATE_UNICODE_ENVIRONMENT: "NAME=value\0" entries, then one more NUL.
// Windows names are case-insensitive (Path is PATH), so the last of
// entries naming the same variable wins, as in exec.Cmd.Env; and the
// entries are sorted by name without regard to case, which is the order
// Windows keeps and documents for the block ("Changing Environment
// Variables"). Names that begin with '=' (the "=C:" drive cwds cmd.exe
// keeps) sort first and are kept.
func windowsEnvBlock(env []string) ([]uint16, error) {
	type entry struct{ key, kv string }
	pos := map[string]int{}
	var entries []entry
	for _, kv := range env {
		if strings.IndexByte(kv, 0) >= 0 {
			return nil, fmt.Errorf("environment entry %q contains a NUL byte", kv)
		}
		// "=C:=C:\x": the name starts after a leading '='.
		i := strings.IndexByte(kv[min(1, len(kv)):], '=')
		if i < 0 {
			continue
		}
		key := strings.ToUpper(kv[:i+min(1, len(kv))])
		if j, ok := pos[key]; ok {
			entries[j].kv = kv
			continue
		}
		pos[key] = len(entries)
		entries = append(entries, entry{key, kv})
	}
	sort.SliceStable(entries, func(a, b int) bool { return entries[a].key < entries[b].key })
	var b []uint16
	for _, e := range entries {
		b = append(b, utf16.Encode([]rune(e.kv))...)
		b = append(b, 0)
	}
	if len(entries) == 0 {
		b = append(b, 0) // an empty block is two NULs
	}
	return append(b, 0), nil
}
