//go:build !linux && !darwin

package bench

import (
	"errors"
	"fmt"
	"runtime"
	"time"
)

// errNoProcStat: the bench reads processes' memory and CPU time from
// /proc, which only Linux has.
var errNoProcStat = fmt.Errorf("the bench reads process memory and CPU time from /proc, which %s does not have: %w", runtime.GOOS, errors.ErrUnsupported)

func guardMemory(int) (rss, anon int64, err error) { return 0, 0, errNoProcStat }

func benchRSSKiB(int) (int64, error) { return 0, errNoProcStat }

func benchResident(int) (rss, anon int64, err error) { return 0, 0, errNoProcStat }

// ProcessCPU is errNoProcStat here.
func ProcessCPU(int) (time.Duration, error) { return 0, errNoProcStat }

// openFDs is errNoProcStat here.
func openFDs(int) (int, error) { return 0, errNoProcStat }
