package backend

import "fmt"

// windowsStatuses names the NTSTATUS values a Windows process most often
// ends with; GetExitCodeProcess reports them as the exit code when the
// process did not choose one.
var windowsStatuses = map[uint32]string{
	0xC000013A: "STATUS_CONTROL_C_EXIT (ended by Ctrl+C or Ctrl+Break)",
	0xC0000005: "STATUS_ACCESS_VIOLATION (crashed: invalid memory access)",
	0xC00000FD: "STATUS_STACK_OVERFLOW (crashed: stack overflow)",
	0xC0000409: "STATUS_STACK_BUFFER_OVERRUN (aborted: fail-fast or stack buffer overrun)",
	0xC0000374: "STATUS_HEAP_CORRUPTION (crashed: heap corruption)",
	0xC000001D: "STATUS_ILLEGAL_INSTRUCTION (crashed: illegal instruction)",
	0xC0000094: "STATUS_INTEGER_DIVIDE_BY_ZERO (crashed: division by zero)",
	0xC0000135: "STATUS_DLL_NOT_FOUND (a DLL it needs is missing)",
	0xC0000142: "STATUS_DLL_INIT_FAILED (a DLL failed to initialize)",
	0x80000003: "STATUS_BREAKPOINT (crashed: breakpoint)",
	0x40010004: "DBG_TERMINATE_PROCESS (ended by a debugger)",
}

// WindowsExitStatus words a Windows exit code: the NTSTATUS it is, when it
// is a known one, else "" (an exit code the program chose). code is the
// DWORD GetExitCodeProcess reports, as Exit.Code carries it.
func WindowsExitStatus(code int) string {
	if code < 0 || code > 0xFFFFFFFF {
		return ""
	}
	if s, ok := windowsStatuses[uint32(code)]; ok {
		return s
	}
	if uint32(code)&0xC0000000 == 0xC0000000 {
		return fmt.Sprintf("NTSTATUS 0x%08X (an error status: the process most likely crashed)", uint32(code))
	}
	return ""
}
