package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// serverStats asks a server's -debug-socket for its runtime counts.
func serverStats(sock string) (ServerStats, error) {
	var st ServerStats
	c, err := net.DialTimeout("unix", sock, 10*time.Second)
	if err != nil {
		return st, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "stats\n"); err != nil {
		return st, err
	}
	err = json.NewDecoder(c).Decode(&st)
	return st, err
}

// serverStacks asks a server's -debug-socket for every goroutine's stack.
func serverStacks(sock string) (string, error) {
	c, err := net.DialTimeout("unix", sock, 10*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "stacks\n"); err != nil {
		return "", err
	}
	b, err := io.ReadAll(c)
	return string(b), err
}

// openFDs counts a process's open descriptors.
func openFDs(pid int) (int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents), err
}

// loadAverage is the machine's 1-minute load average (0 when unknown).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b) + " 0")[0], 64)
	return f
}
