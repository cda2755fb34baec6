package backend

import (
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// spawnIO is what the child's console and standard handles are: a pseudo
// console, or the child's ends of three pipes.
type spawnIO struct {
	console windows.Handle    // a ConPTY; 0 for pipes
	std     [3]windows.Handle // stdin, stdout, stderr (pipes)
	flags   uint32            // more creation flags
}

// spawn starts spec suspended, puts it in the job, and only then lets its
// first thread run: no instruction of the program runs outside the job, so
// nothing it starts can escape it. os/exec cannot do this (it closes the
// thread handle it would need to resume), and neither can
// charmbracelet/x/conpty's Spawn, which does the same; so agentty calls
// CreateProcess itself. watch registers the job's messages before the
// process joins it, and unwatch undoes that if the start fails after all
// (before the process handle the watcher polls is closed). It returns the
// process handle and id.
func spawn(spec Spec, io spawnIO, job windows.Handle, watch func(proc windows.Handle, pid uint32) error, unwatch func()) (windows.Handle, uint32, error) {
	enableCtrlC.Do(inheritCtrlC)
	app, err := windows.UTF16PtrFromString(spec.Path)
	if err != nil {
		return 0, 0, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	// CreateProcess may write to the command line: a buffer of our own.
	cmdline, err := windows.UTF16FromString(windows.ComposeCommandLine(spec.Argv))
	if err != nil {
		return 0, 0, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	var dir *uint16
	if spec.Dir != "" {
		if dir, err = windows.UTF16PtrFromString(spec.Dir); err != nil {
			return 0, 0, fmt.Errorf("start %s: %w", spec.Path, err)
		}
	}
	env, err := windowsEnvBlock(spec.Env)
	if err != nil {
		return 0, 0, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	attrs, err := windows.NewProcThreadAttributeList(1)
	if err != nil {
		return 0, 0, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	defer attrs.Delete()
	var si windows.StartupInfoEx
	si.Cb = uint32(unsafe.Sizeof(si))
	si.Flags = windows.STARTF_USESTDHANDLES
	inherit := false
	if io.console != 0 {
		// The attribute's value is the HPCON itself. Standard handles
		// are given, and NULL: without them a console child gets copies
		// of agentty's own (redirected) ones instead of the pseudo
		// console's, and NULL ones are replaced by the console's
		// (microsoft/terminal#4585, #11276; node-pty does the same).
		hpc := io.console
		if err := attrs.Update(windows.PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE,
			*(*unsafe.Pointer)(unsafe.Pointer(&hpc)), unsafe.Sizeof(hpc)); err != nil {
			return 0, 0, fmt.Errorf("start %s: pseudo console attribute: %w", spec.Path, err)
		}
		si.StdInput, si.StdOutput, si.StdErr = 0, 0, 0
	} else {
		// Inherit exactly the three pipe ends: without the list, every
		// inheritable handle of agentty (other sessions' pipes being
		// set up at the same time) would leak into the child.
		si.StdInput, si.StdOutput, si.StdErr = io.std[0], io.std[1], io.std[2]
		list := slices.Compact(slices.Clone(io.std[:]))
		if err := attrs.Update(windows.PROC_THREAD_ATTRIBUTE_HANDLE_LIST,
			unsafe.Pointer(&list[0]), uintptr(len(list))*unsafe.Sizeof(list[0])); err != nil {
			return 0, 0, fmt.Errorf("start %s: handle list attribute: %w", spec.Path, err)
		}
		inherit = true
	}
	si.ProcThreadAttributeList = attrs.List()
	flags := uint32(windows.EXTENDED_STARTUPINFO_PRESENT|windows.CREATE_UNICODE_ENVIRONMENT|windows.CREATE_SUSPENDED) | io.flags
	var pi windows.ProcessInformation
	if err := windows.CreateProcess(app, &cmdline[0], nil, nil, inherit, flags, &env[0], dir, &si.StartupInfo, &pi); err != nil {
		return 0, 0, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	defer windows.CloseHandle(pi.Thread)
	watched := false
	fail := func(err error) (windows.Handle, uint32, error) {
		_ = windows.TerminateProcess(pi.Process, 1)
		if watched {
			unwatch()
		}
		windows.CloseHandle(pi.Process)
		return 0, 0, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	if err := watch(pi.Process, pi.ProcessId); err != nil {
		return fail(err)
	}
	watched = true
	if err := windows.AssignProcessToJobObject(job, pi.Process); err != nil {
		return fail(fmt.Errorf("join job object: %w", err))
	}
	if _, err := windows.ResumeThread(pi.Thread); err != nil {
		return fail(fmt.Errorf("resume: %w", err))
	}
	return pi.Process, pi.ProcessId, nil
}

var (
	enableCtrlC               sync.Once
	procSetConsoleCtrlHandler = windows.NewLazySystemDLL("kernel32.dll").NewProc("SetConsoleCtrlHandler")
)

// inheritCtrlC clears this process's "ignore Ctrl+C" flag, which children
// inherit: a process started with CREATE_NEW_PROCESS_GROUP, as the daemon
// is, has it set, and its sessions' programs would then ignore Ctrl+C (and
// so SIGINT and the first step of Terminate). A nil handler with FALSE
// changes only the flag; Go's own handler (os/signal) stays.
func inheritCtrlC() { _, _, _ = procSetConsoleCtrlHandler.Call(0, 0) }
