//go:build windows

package askpass

import "os"

// ownedByMe is false: owners are not read on Windows, so removeStale
// leaves every directory alone (no askpass server runs there).
func ownedByMe(os.FileInfo) bool { return false }
