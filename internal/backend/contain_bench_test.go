//go:build linux

package backend

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/cgroup"
	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/proctree"
)

// reportQuantiles reports the median and 95th percentile of ds.
func reportQuantiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds()), "p95-µs")
}

func benchParent(b *testing.B) *cgroup.Parent {
	p, err := cgroup.Open("agentty-bench-" + time.Now().Format("150405.000000"))
	if err != nil {
		b.Fatalf("no cgroup here: %v", err)
	}
	b.Cleanup(func() { _ = p.Close() })
	return p
}

// BenchmarkStart measures starting /bin/true and collecting its exit,
// plain against a cgroup, a cgroup with the full sandbox (Landlock,
// private network, no_new_privs, rlimits) and a keeper (what a session no
// cgroup holds gets). The keeper is $AGENTTY_BENCH_KEEPER (an agentty
// binary: its keeper runs before the heavy package inits, see
// guardstart) or else this test binary, which runs every init first.
func BenchmarkStart(b *testing.B) {
	sandboxed := contain.Profile{
		Limits:  contain.Limits{AddressSpace: 1 << 30, CPUSeconds: 60, FileSize: 1 << 30, OpenFiles: 1024, NoCoreDumps: true},
		Sandbox: contain.Sandbox{Filesystem: contain.FSReadOnly, NoNetwork: true, NoNewPrivs: true},
	}
	noNetns := sandboxed
	noNetns.Sandbox.NoNetwork = false
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	if k := os.Getenv("AGENTTY_BENCH_KEEPER"); k != "" {
		exe = k
	}
	for _, tc := range []struct {
		name    string
		cgroup  bool
		profile *contain.Profile
		keeper  bool
	}{{"plain", false, nil, false}, {"keeper", false, nil, true}, {"cgroup", true, nil, false},
		{"cgroup+landlock+rlimits", true, &noNetns, false}, {"cgroup+sandbox", true, &sandboxed, false}} {
		b.Run(tc.name, func(b *testing.B) {
			var parent *cgroup.Parent
			if tc.cgroup {
				parent = benchParent(b)
			}
			var ds []time.Duration
			for i := 0; b.Loop(); i++ {
				sp := Spec{Path: "/bin/true", Argv: []string{"true"}, Dir: "/", Env: os.Environ()}
				if tc.keeper {
					sp.Keeper = []string{exe, proctree.KeeperArg}
				}
				if parent != nil {
					sp.Contain = &Contain{Cgroups: parent, Group: "b" + itoa(i)}
					if tc.profile != nil {
						sp.Contain.Profile = *tc.profile
					}
				}
				t0 := time.Now()
				p, err := StartPipe(sp, direct, func(outlog.Stream, []byte) {})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.Wait(); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t0))
				if k := keptOf(p); k != nil {
					<-k.gone
					var ws unix.WaitStatus // this test process runs no orphan reaper
					_, _ = unix.Wait4(k.keeper, &ws, 0, nil)
				}
				p.Close()
			}
			reportQuantiles(b, ds)
		})
	}
}

// BenchmarkTerminate100 measures ending a tree of 100 processes: one
// cgroup.kill and a wait for "populated 0", against proctree's parentage
// walk with its /proc scan for the marker.
func BenchmarkTerminate100(b *testing.B) {
	for _, useCgroup := range []bool{true, false} {
		name := "proctree"
		if useCgroup {
			name = "cgroup.kill"
		}
		b.Run(name, func(b *testing.B) {
			var parent *cgroup.Parent
			if useCgroup {
				parent = benchParent(b)
			}
			var ds []time.Duration
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				sp := spec(`i=0; while [ $i -lt 99 ]; do sleep 300 & i=$((i+1)); done; echo ready; wait`)
				sp.Marker = "AGENTTY_SESSION=bench/" + itoa(os.Getpid()) + "/" + itoa(i)
				sp.Env = append(sp.Env, sp.Marker)
				if parent != nil {
					sp.Contain = &Contain{Cgroups: parent, Group: "t" + itoa(i)}
				}
				ss := newSignalSink("ready\n")
				p, err := StartPipe(sp, direct, ss.sink)
				if err != nil {
					b.Fatal(err)
				}
				<-ss.seen
				b.StartTimer()
				t0 := time.Now()
				if err := p.Terminate(context.Background(), 0); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t0))
				b.StopTimer()
				_, _ = p.Wait()
				p.Close()
				b.StartTimer()
			}
			reportQuantiles(b, ds)
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
