package bench

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestProcessCPU_MatchesRusage: the CPU time read from /proc for this
// process is what getrusage says it used, to the clock tick, once it has
// used some.
func TestProcessCPU_MatchesRusage(t *testing.T) {
	self := os.Getpid()
	c0, err := ProcessCPU(self)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for x := 0; ; x++ {
		// Spin until the kernel has charged 50 ms more.
		if x%1_000_000 == 0 {
			c, err := ProcessCPU(self)
			if err != nil {
				t.Fatal(err)
			}
			if c-c0 >= 50*time.Millisecond {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("CPU time read as %v after 10 s of spinning, from %v", c, c0)
			}
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	c, err := ProcessCPU(self)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	// Ticks and rusage's finer accounting differ by up to a tick per
	// field, and threads ran on between the two reads.
	if d := c - want; d < -30*time.Millisecond || d > 30*time.Millisecond {
		t.Fatalf("ProcessCPU %v, getrusage %v", c, want)
	}
	if _, err := ProcessCPU(1 << 30); err == nil {
		t.Fatal("no error for a pid that cannot exist")
	}
}
