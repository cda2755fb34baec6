//go:build windows

package httpserver

// connBudget is want: Windows puts no per-process limit on handles that
// connections could exhaust before sessions.
func connBudget(want int) (total int, soft uint64) { return want, 0 }
