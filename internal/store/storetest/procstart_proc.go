//go:build !darwin

package storetest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// ProcStart is field 22 of /proc/PID/stat: with the pid it names one
// process, as the store records its owner.
func ProcStart(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	n, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
