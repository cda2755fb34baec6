package backend

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// One Job Object holds each local session's tree. The program is put in it
// before its first instruction runs (spawn_windows.go starts it suspended),
// and nothing may break away, so every process it ever starts is a member:
// the job's membership is the tree, exactly, which is what the guard and the
// tree walk give on Linux. With JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE the
// kernel ends every member when the last handle to the job closes, and only
// agentty holds one (not inheritable): when agentty dies, however it dies,
// the tree dies with it. So no guard process is needed on Windows.

// newJob creates a session's job.
func newJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil) // nil attributes: not inheritable
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	// Neither JOB_OBJECT_LIMIT_BREAKAWAY_OK nor _SILENT_BREAKAWAY_OK: a
	// member cannot leave.
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("job object limits: %w", err)
	}
	return job, nil
}

// jobAssociateCompletionPort is JOBOBJECT_ASSOCIATE_COMPLETION_PORT.
type jobAssociateCompletionPort struct {
	Key  uintptr
	Port windows.Handle
}

// associate sends job's messages to port under key.
func associate(job, port windows.Handle, key uintptr) error {
	a := jobAssociateCompletionPort{Key: key, Port: port}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectAssociateCompletionPortInformation,
		uintptr(unsafe.Pointer(&a)), uint32(unsafe.Sizeof(a))); err != nil {
		return fmt.Errorf("job object completion port: %w", err)
	}
	return nil
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                     int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses                uint32
	ActiveProcesses, TotalTerminatedProcesses          uint32
}

// activeProcesses counts the job's running members.
func activeProcesses(job windows.Handle) (int, error) {
	var a jobAccounting
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&a)), uint32(unsafe.Sizeof(a)), nil); err != nil {
		return 0, fmt.Errorf("job object accounting: %w", err)
	}
	return int(a.ActiveProcesses), nil
}

// jobPIDList is the head of JOBOBJECT_BASIC_PROCESS_ID_LIST; the ids
// run on past IDs' one element.
type jobPIDList struct {
	Assigned, InList uint32
	IDs              [1]uintptr
}

// jobPIDs lists the job's members: the session's whole tree.
func jobPIDs(job windows.Handle) ([]int, error) {
	n := 64
	for {
		head := unsafe.Offsetof(jobPIDList{}.IDs)
		buf := make([]uintptr, (head+uintptr(n)*unsafe.Sizeof(uintptr(0)))/unsafe.Sizeof(uintptr(0)))
		l := (*jobPIDList)(unsafe.Pointer(&buf[0]))
		err := windows.QueryInformationJobObject(job, windows.JobObjectBasicProcessIdList,
			uintptr(unsafe.Pointer(l)), uint32(len(buf))*uint32(unsafe.Sizeof(buf[0])), nil)
		if err == windows.ERROR_MORE_DATA || (err == nil && l.InList < l.Assigned) {
			n = int(l.Assigned) + 16 // it may grow meanwhile
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("job object process list: %w", err)
		}
		ids := unsafe.Slice(&l.IDs[0], l.InList)
		pids := make([]int, len(ids))
		for i, id := range ids {
			pids[i] = int(id)
		}
		return pids, nil
	}
}
