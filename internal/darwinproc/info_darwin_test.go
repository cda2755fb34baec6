package darwinproc

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Mac only, like task_darwin_test.go: each call against what this process
// knows of itself.

func TestBSDInfo_Self(t *testing.T) {
	b, err := BSDInfo(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if b.PID != os.Getpid() || b.PPID != os.Getppid() || b.UID != uint32(os.Getuid()) {
		t.Fatalf("BSDInfo(self) = %+v; want pid %d, ppid %d, uid %d", b, os.Getpid(), os.Getppid(), os.Getuid())
	}
	if age := time.Since(b.Start); age < 0 || age > time.Hour {
		t.Fatalf("BSDInfo(self).Start = %v, %v ago", b.Start, age)
	}
}

func TestUniqueIDs_ChildNamesParent(t *testing.T) {
	self, err := UniqueIDs(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	kid, err := UniqueIDs(cmd.Process.Pid)
	if err != nil || kid.ParentUnique != self.Unique || kid.Unique <= self.Unique {
		t.Fatalf("UniqueIDs(child) = %+v, %v; self %+v", kid, err, self)
	}
}

func TestSocket_ListenerAmongFDs(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	sock := filepath.Join(t.TempDir(), "s")
	uln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer uln.Close()
	fds, err := FDs(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	var ports []int
	var paths []string
	for _, fd := range fds {
		if fd.Type != FDSocket {
			continue
		}
		s, err := Socket(os.Getpid(), fd.Num)
		if err != nil || !s.Listening() {
			continue
		}
		ports = append(ports, s.LocalPort)
		if s.Path != "" {
			paths = append(paths, s.Path)
		}
	}
	if !slices.Contains(ports, ln.Addr().(*net.TCPAddr).Port) || !slices.Contains(paths, sock) {
		t.Fatalf("listening ports %v, paths %v; want %v and %s", ports, paths, ln.Addr(), sock)
	}
}

func TestCwd_AndProcArgs_Child(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	cmd := exec.Command("/bin/sleep", "30")
	cmd.Dir = dir
	cmd.Env = []string{"AGENTTY_TEST_MARK=yes"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if got, err := Cwd(cmd.Process.Pid); err != nil || got != dir {
		t.Errorf("Cwd(child) = %q, %v; want %q", got, err, dir)
	}
	var a Args
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if a, err = ProcArgs(cmd.Process.Pid); err == nil && len(a.Argv) == 2 {
			break // exec done
		}
	}
	if err != nil || !slices.Equal(a.Argv, []string{"/bin/sleep", "30"}) {
		t.Fatalf("ProcArgs(child) = %+v, %v", a, err)
	}
	// /bin/sleep is a platform binary: SIP may withhold its environment.
	if v, ok := a.Getenv("AGENTTY_TEST_MARK"); len(a.Env) > 0 && (!ok || v != "yes") {
		t.Errorf("ProcArgs(child).Env = %q; want AGENTTY_TEST_MARK=yes", a.Env)
	}
}

func TestChildren_OfSelf(t *testing.T) {
	cmd := exec.Command("/bin/sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	kids, err := Children(os.Getpid())
	if err != nil || !slices.Contains(kids, cmd.Process.Pid) {
		t.Fatalf("Children(self) = %v, %v; want %d among them", kids, err, cmd.Process.Pid)
	}
	if kids, err := Children(cmd.Process.Pid); err != nil || len(kids) != 0 {
		t.Fatalf("Children(sleep) = %v, %v; want none", kids, err)
	}
}
