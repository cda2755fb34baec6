//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/contain"
)

// Main is the helper: it applies the Spec on fd 4 to this process and
// execs the program, or reports why not on fd 3 and returns 127. It never
// returns after a successful exec.
func Main() int {
	runtime.LockOSThread() // Landlock and prctl act on the thread that execs
	debug.SetGCPercent(-1) // no collection between the limits and the exec
	unix.CloseOnExec(reportFD)
	report := os.NewFile(reportFD, "sandbox-report")
	fail := func(stage string, err error) int {
		fmt.Fprintf(report, "%s\t%v", stage, err)
		return 127
	}
	var spec Spec
	if err := readSpec(&spec); err != nil {
		return fail("spec", err)
	}
	if err := apply(&spec); err != nil {
		var se stageError
		if errors.As(err, &se) {
			return fail(se.stage, se.err)
		}
		return fail("sandbox", err)
	}
	err := unix.Exec(spec.Path, spec.Argv, os.Environ())
	return fail("exec", fmt.Errorf("%s\t%w", spec.Path, err))
}

// readSpec reads the Spec from its memory file and closes it, so the
// program does not inherit it. The file's offset is the parent's (it wrote
// there), so it is read from 0 with pread.
func readSpec(spec *Spec) error {
	f := os.NewFile(specFD, "sandbox-spec")
	defer f.Close()
	b, err := io.ReadAll(io.NewSectionReader(f, 0, math.MaxInt64))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, spec)
}

type stageError struct {
	stage string
	err   error
}

func (e stageError) Error() string { return e.stage + ": " + e.err.Error() }

// apply sets up this process as spec says, in the order that needs the
// fewest privileges at each step: loopback (needs CAP_NET_ADMIN), rlimits,
// no_new_privs, Landlock, then dropping capabilities; the address-space
// limit comes last, just before the exec: this process's own mappings
// (a race-enabled test binary's shadow memory above all) may exceed it
// already, and then every new mapping, a Landlock rule's allocation
// included, fails with "cannot allocate memory".
func apply(spec *Spec) error {
	sb := spec.Sandbox
	if sb.NoNetwork {
		if err := loopbackUp(); err != nil {
			return stageError{"network namespace", fmt.Errorf("bring loopback up: %w", err)}
		}
	}
	if err := setRlimits(spec.Limits); err != nil {
		return stageError{"rlimits", err}
	}
	if sb.NoNewPrivs || sb.Filesystem != contain.FSOff {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return stageError{"no_new_privs", err}
		}
	}
	if sb.Filesystem != contain.FSOff || sb.LandlockABI > 0 {
		if err := restrictFS(sb); err != nil {
			return stageError{"landlock", err}
		}
	}
	if spec.DropCaps {
		if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
			return stageError{"capabilities", err}
		}
	}
	if v := spec.Limits.AddressSpace; v > 0 {
		if err := syscall.Setrlimit(unix.RLIMIT_AS, &syscall.Rlimit{Cur: uint64(v), Max: uint64(v)}); err != nil {
			return stageError{"rlimits", fmt.Errorf("address_space=%d: %w", v, err)}
		}
	}
	return nil
}

// setRlimits sets soft and hard limits, the address space apart (apply
// sets it last); the CPU hard limit is a second above the soft one, so
// SIGXCPU comes first and SIGKILL follows for a program that ignores it.
func setRlimits(l contain.Limits) error {
	set := func(res int, name string, v uint64, hard uint64) error {
		// syscall.Setrlimit, so the Go runtime does not restore its own
		// RLIMIT_NOFILE on exec.
		if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: v, Max: hard}); err != nil {
			return fmt.Errorf("%s=%d: %w", name, v, err)
		}
		return nil
	}
	for _, r := range []struct {
		res  int
		name string
		v    int64
		slop uint64
	}{
		{unix.RLIMIT_CPU, "cpu_seconds", l.CPUSeconds, 1},
		{unix.RLIMIT_FSIZE, "file_size", l.FileSize, 0},
		{unix.RLIMIT_NOFILE, "open_files", l.OpenFiles, 0},
	} {
		if r.v > 0 {
			if err := set(r.res, r.name, uint64(r.v), uint64(r.v)+r.slop); err != nil {
				return err
			}
		}
	}
	if l.NoCoreDumps {
		return set(unix.RLIMIT_CORE, "core", 0, 0)
	}
	return nil
}

// loopbackUp sets IFF_UP on lo in this (new) network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// configs are go-landlock's configurations by ABI version.
var configs = []landlock.Config{landlock.V1, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// restrictFS applies the filesystem rules with everything the kernel's
// Landlock ABI can enforce, after checking it meets the least ABI asked.
func restrictFS(sb contain.Sandbox) error {
	abi := detected().abi
	need := max(sb.LandlockABI, 1)
	if abi < need {
		return fmt.Errorf("ABI %d needed, the kernel offers %d", need, abi)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	var rules []landlock.Rule
	if sb.Filesystem == contain.FSListed {
		rules = append(rules, landlock.RODirs(contain.SystemRead...).IgnoreIfMissing(), landlock.RODirs(sb.Read...))
	} else {
		rules = append(rules, landlock.RODirs("/"))
	}
	rules = append(rules,
		landlock.RWDirs(append([]string{cwd}, sb.Write...)...).WithRefer(),
		// Terminals and the usual character devices, with their ioctls.
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom", "/dev/ptmx").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts", "/dev/shm").WithIoctlDev().IgnoreIfMissing(),
	)
	// Scoped too (ABI 6 on): no signal to, and no abstract unix socket of,
	// a process outside the sandbox, so a program cannot kill or reach the
	// server, another session or the person's desktop. The network is no
	// Landlock matter here: no_network is a namespace of its own.
	cfg := configs[min(abi, len(configs)-1)]
	cfg.HandledAccessNet = 0
	return cfg.BestEffort().Restrict(rules...)
}

// errnoOf recovers the errno named at the end of an exec report.
func errnoOf(msg string) error {
	for _, e := range []syscall.Errno{unix.ENOENT, unix.EACCES, unix.ENOEXEC, unix.ENOTDIR, unix.EPERM, unix.E2BIG, unix.ENOMEM} {
		if strings.HasSuffix(msg, e.Error()) {
			return e
		}
	}
	return errors.New(msg)
}
