package server

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// retainArg makes the test binary run one peak and report what the Go
// runtime kept of it (runRetainPeak), in a fresh process.
const retainArg = "server-test-retain-peak"

// retainedClasses are the runtime's memory classes that a peak leaves
// behind after everything is freed and returned (debug.FreeOSMemory).
var retainedClasses = []string{
	"/memory/classes/metadata/other:bytes", // mark bits, span sets, arena metadata
	"/memory/classes/heap/stacks:bytes",    // stacks kept for reuse
	"/memory/classes/heap/objects:bytes",   // goroutine descriptors are never freed
	"/memory/classes/heap/unused:bytes",    // pages a few live objects keep
	"/memory/classes/metadata/mspan/inuse:bytes",
}

// retained is what runRetainPeak reports, in KiB.
type retained struct {
	Classes float64 `json:"classes_kib"` // the sum of retainedClasses' growth
	RssAnon float64 `json:"rss_anon_kib"`
}

func readClasses() (sum uint64) {
	ss := make([]metrics.Sample, len(retainedClasses))
	for i, n := range retainedClasses {
		ss[i].Name = n
	}
	metrics.Read(ss)
	for _, s := range ss {
		sum += s.Value.Uint64()
	}
	return sum
}

func rssAnonKiB() float64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssAnon:"); ok {
			n, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return n
		}
	}
	return 0
}

// runRetainPeak makes a peak the size of the memory bench's 200 idle PTY
// sessions (600 parked goroutines, three per session, and 30 MB of small
// objects), frees all of it, returns it to the system, and prints on
// stdout what the runtime kept.
func runRetainPeak() int {
	debug.FreeOSMemory()
	classes, anon := readClasses(), rssAnonKiB()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 600 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var frame [2048]byte // about a session goroutine's stack depth
			_ = frame
			<-stop
		}()
	}
	objs := make([][]byte, 0, 200_000)
	for i := range cap(objs) {
		objs = append(objs, make([]byte, 16+i%200))
	}
	close(stop)
	wg.Wait()
	objs = nil
	_ = objs
	debug.FreeOSMemory()
	r := retained{Classes: float64(int64(readClasses())-int64(classes)) / 1024, RssAnon: rssAnonKiB() - anon}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// BenchmarkRuntime_RetainsAfterPeak measures, in a fresh process each
// time, what the Go runtime keeps of a peak like 200 idle PTY sessions
// once everything is freed and returned: the floor under the bench's
// "RSS after deleting them" row, whatever the server itself frees:
//
//	go test -run '^$' -bench RetainsAfterPeak -benchtime 5x -count 3 ./internal/server
func BenchmarkRuntime_RetainsAfterPeak(b *testing.B) {
	var sum retained
	for range b.N {
		out, err := exec.Command(os.Args[0], retainArg).Output()
		if err != nil {
			b.Fatal(err)
		}
		var r retained
		if err := json.Unmarshal(out, &r); err != nil {
			b.Fatalf("%v: %q", err, out)
		}
		sum.Classes += r.Classes
		sum.RssAnon += r.RssAnon
	}
	b.ReportMetric(sum.Classes/float64(b.N), "KiB-runtime-kept")
	b.ReportMetric(sum.RssAnon/float64(b.N), "KiB-RssAnon-kept")
}
