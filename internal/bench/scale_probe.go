package bench

import (
	"encoding/json"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// serverStats asks a server's -debug-socket for its runtime counts.
func serverStats(sock string) (ServerStats, error) { return askStats(sock, "stats\n") }

// serverCollect has the server collect its garbage and return every free
// page first, so an RSS read next is what it holds, not what it has not
// yet collected.
func serverCollect(sock string) (ServerStats, error) { return askStats(sock, "collect\n") }

func askStats(sock, request string) (ServerStats, error) {
	var st ServerStats
	c, err := net.DialTimeout("unix", sock, 10*time.Second)
	if err != nil {
		return st, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, request); err != nil {
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

// loadAverage is the machine's 1-minute load average (0 when unknown).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b) + " 0")[0], 64)
	return f
}
