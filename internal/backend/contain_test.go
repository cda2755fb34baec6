//go:build linux

package backend

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/cgroup"
	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/outlog"
)

// signalSink collects output and closes seen once it holds want.
type signalSink struct {
	mu   sync.Mutex
	buf  strings.Builder
	want string
	seen chan struct{}
}

func newSignalSink(want string) *signalSink {
	return &signalSink{want: want, seen: make(chan struct{})}
}

func (s *signalSink) sink(_ outlog.Stream, p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	if strings.Contains(s.buf.String(), s.want) && !isClosed(s.seen) {
		close(s.seen)
	}
}

func (s *signalSink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// testParent opens a cgroup subtree for one test, or returns nil with the
// reason where this machine gives none (the process-tree path is tested then).
func testParent(t *testing.T) (*cgroup.Parent, string) {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	p, err := cgroup.Open("agentty-test-" + hex.EncodeToString(b))
	if err != nil {
		t.Logf("no cgroups here, testing process-tree tracking: %v", err)
		return nil, err.Error()
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("cgroup parent left behind: %v", err)
		}
	})
	return p, ""
}

var pidsRE = regexp.MustCompile(`pid=(\d+)`)

// TestContain_EscapesEndWithTheSession starts programs whose processes
// leave the root's tree (setsid, double fork, nohup then the root exits, a
// daemonizing python) and checks that terminate leaves nothing: with a
// cgroup, the escaped processes were members of the session's group and
// the group is removed; without one, as proctree always did.
func TestContain_EscapesEndWithTheSession(t *testing.T) {
	scripts := []struct {
		name, script string
		rootExits    bool
	}{
		{"setsid", `setsid sleep 300 >/dev/null 2>&1 & echo pid=$!; echo ready; sleep 300`, false},
		{"double fork", `(sleep 300 >/dev/null 2>&1 & echo pid=$!); echo ready; sleep 300`, false},
		{"nohup then root exits", `nohup sleep 300 >/dev/null 2>&1 & echo pid=$!; echo ready; exit 0`, true},
		{"python daemon", `exec python3 -c '
import os, sys
if os.fork():
    os.wait(); sys.exit(0)
os.setsid()
if os.fork():
    os._exit(0)
print("pid=%d" % os.getpid()); print("ready"); sys.stdout.flush()
fd = os.open("/dev/null", os.O_RDWR)
for i in (0, 1, 2): os.dup2(fd, i)
import time; time.sleep(300)
'`, true},
	}
	parent, why := testParent(t)
	for _, withCgroup := range []bool{true, false} {
		for _, sc := range scripts {
			t.Run(sc.name+"/cgroup="+strconv.FormatBool(withCgroup), func(t *testing.T) {
				sp := spec(sc.script)
				sp.Marker = "AGENTTY_SESSION=containtest/" + strconv.Itoa(os.Getpid()) + "/" + t.Name()
				sp.Env = append(sp.Env, sp.Marker)
				sp.Contain = &Contain{Group: strings.ReplaceAll(t.Name(), "/", "_"), NoCgroup: "test"}
				if withCgroup {
					if parent == nil {
						sp.Contain.NoCgroup = why
					} else {
						sp.Contain.Cgroups = parent
					}
				}
				ss := newSignalSink("ready\n")
				p, err := StartPipe(sp, direct, ss.sink)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if sc.rootExits {
					if ex, err := p.Wait(); err != nil || ex.Code != 0 {
						t.Fatalf("root: %+v, %v", ex, err)
					}
				}
				select {
				case <-ss.seen:
				case <-time.After(10 * time.Second):
					t.Fatalf("no ready line; output %q", ss.text())
				}
				m := pidsRE.FindStringSubmatch(ss.text())
				if m == nil {
					t.Fatalf("no pid in %q", ss.text())
				}
				escaped, _ := strconv.Atoi(m[1])
				rep := p.Containment()
				pidfd, err := unix.PidfdOpen(escaped, 0)
				if err != nil {
					t.Fatalf("escaped process %d is not running before terminate: %v", escaped, err)
				}
				defer unix.Close(pidfd)
				if withCgroup && parent != nil {
					if rep.Kind != contain.KindCgroup {
						t.Fatalf("containment = %+v, want cgroup", rep)
					}
					procs := readProcs(t, rep.Cgroup)
					if !slices.Contains(procs, escaped) {
						t.Fatalf("escaped pid %d not in the session's cgroup %v", escaped, procs)
					}
				} else if rep.Kind != contain.KindProcessTree {
					t.Fatalf("containment = %+v, want process_tree", rep)
				}
				if !withCgroup {
					// The process-tree scan cannot see a process in the
					// middle of an exec (its environment is unreadable
					// then); a cgroup sees it throughout. Let the
					// escaped process finish exec'ing first.
					waitExecd(t, escaped)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := p.Terminate(ctx, 0); err != nil {
					t.Fatal(err)
				}
				if !sc.rootExits {
					if ex, _ := p.Wait(); ex.Signal != syscall.SIGKILL {
						t.Fatalf("root ended %+v, want SIGKILL", ex)
					}
				}
				// The group empties as its members exit; a pidfd turns
				// readable a moment later, when the process is a zombie.
				if n, err := unix.Poll([]unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}, 2000); n != 1 {
					t.Fatalf("escaped process %d survived terminate (%v)", escaped, err)
				}
				if rep.Cgroup != "" {
					if _, err := os.Stat(rep.Cgroup); !os.IsNotExist(err) {
						t.Fatalf("cgroup %s still exists after terminate (%v)", rep.Cgroup, err)
					}
				}
			})
		}
	}
}

func readProcs(t *testing.T, dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

// waitExecd waits until pid runs sleep or python3, checking with a
// deadline: there is no event for another process's exec.
func waitExecd(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for d := time.Millisecond; ; d = min(2*d, 20*time.Millisecond) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if c := strings.TrimSpace(string(b)); c == "sleep" || strings.HasPrefix(c, "python") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not exec (comm %q)", pid, b)
		}
		time.Sleep(d)
	}
}

// startReady starts script in pipe mode in group <name><i> of parent
// (why: no cgroup) and returns once it printed "ready".
func startReady(t *testing.T, script string, parent *cgroup.Parent, why, name string, i int) Process {
	t.Helper()
	sp := spec(script)
	sp.Marker = "AGENTTY_SESSION=contain" + name + "/" + strconv.Itoa(os.Getpid()) + "/" + strconv.Itoa(i)
	sp.Env = append(sp.Env, sp.Marker)
	sp.Contain = &Contain{Cgroups: parent, NoCgroup: why, Group: name + strconv.Itoa(i)}
	ss := newSignalSink("ready\n")
	p, err := StartPipe(sp, direct, ss.sink)
	if err != nil {
		t.Fatal(err)
	}
	<-ss.seen
	return p
}

// TestContain_TerminateWhileForking loops terminate against a shell that
// keeps forking escaping children: cgroup.kill must leave nothing, every
// time, and the group must be gone.
func TestContain_TerminateWhileForking(t *testing.T) {
	parent, why := testParent(t)
	for i := range 50 {
		p := startReady(t, `echo ready; while :; do (sleep 300 &); done`, parent, why, "loop", i)
		rep := p.Containment()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := p.Terminate(ctx, 0)
		cancel()
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if ex, _ := p.Wait(); ex.Signal != syscall.SIGKILL {
			t.Fatalf("round %d: root ended %+v", i, ex)
		}
		p.Close()
		if rep.Cgroup != "" {
			if _, err := os.Stat(rep.Cgroup); !os.IsNotExist(err) {
				t.Fatalf("round %d: cgroup %s left (%v)", i, rep.Cgroup, err)
			}
		}
	}
}

// TestContain_TerminateRacesExit loops terminate with grace against the
// exit path: the program ends at SIGTERM, and its process's Close (run
// once the exit is seen, as a session's exit goroutine does) removes the
// emptied group while terminate is about to kill it. Terminate must still
// succeed, every time: the group is gone, which is what it wanted.
func TestContain_TerminateRacesExit(t *testing.T) {
	parent, why := testParent(t)
	for i := range 200 {
		p := startReady(t, `echo ready; exec cat`, parent, why, "race", i)
		rep := p.Containment()
		terminated := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			terminated <- p.Terminate(ctx, 5*time.Second)
		}()
		if ex, _ := p.Wait(); ex.Signal != syscall.SIGTERM {
			t.Fatalf("round %d: root ended %+v, want SIGTERM", i, ex)
		}
		p.Close()
		if err := <-terminated; err != nil {
			t.Fatalf("round %d: terminate: %v", i, err)
		}
		if rep.Cgroup != "" {
			if _, err := os.Stat(rep.Cgroup); !os.IsNotExist(err) {
				t.Fatalf("round %d: cgroup %s left (%v)", i, rep.Cgroup, err)
			}
		}
	}
}

// TestSurvivors_NamesWhatIsLeft: a group that outlives its kill says which
// processes are left and in what state.
func TestSurvivors_NamesWhatIsLeft(t *testing.T) {
	parent, why := testParent(t)
	if parent == nil {
		t.Skip(why)
	}
	p := startReady(t, `echo ready; exec sleep 60`, parent, why, "left", 0)
	defer func() {
		_ = p.Terminate(context.Background(), 0)
		p.Close()
	}()
	g := p.(*pipeProcess).box.group
	// The root may still be sh on its way to the exec, running or not.
	want := regexp.MustCompile(`^ \(left: ` + strconv.Itoa(p.PID()) + ` (sh|sleep) [RS]\)$`)
	if got := survivors(g); !want.MatchString(got) {
		t.Fatalf("survivors = %q, want a match for %s", got, want)
	}
}
