//go:build amd64 || arm64

package darwinproc

import "unsafe"

// The structures below are XNU's bsd/sys/proc_info.h transcribed field by
// field. On darwin's two 64-bit targets Go lays them out as the C compiler
// does (natural alignment, no packing), so each eq line stops the build
// when an offset or size the decoders use disagrees with the header. The
// build constraint is because on 32-bit targets uint64 aligns to 4 in Go.

// eq{}[a-b] compiles only when a == b: a larger a indexes out of range, a
// smaller one overflows uintptr.
type eq [1]struct{}

type rawTaskInfo struct {
	VirtualSize, ResidentSize, TotalUser, TotalSystem, ThreadsUser, ThreadsSystem uint64
	Policy, Faults, Pageins, CowFaults, MessagesSent, MessagesReceived            int32
	SyscallsMach, SyscallsUnix, Csw, Threadnum, Numrunning, Priority              int32
}

var (
	_ = eq{}[unsafe.Sizeof(rawTaskInfo{})-sizeTaskInfo]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.VirtualSize)-offTaskVirtual]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.ResidentSize)-offTaskResident]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.TotalUser)-offTaskTotalUser]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.TotalSystem)-offTaskTotalSystem]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.Faults)-offTaskFaults]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.MessagesSent)-offTaskMessagesSent]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.MessagesReceived)-offTaskMessagesRecvd]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.SyscallsMach)-offTaskSyscallsMach]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.SyscallsUnix)-offTaskSyscallsUnix]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.Csw)-offTaskCSw]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.Threadnum)-offTaskThreadNum]
	_ = eq{}[unsafe.Offsetof(rawTaskInfo{}.Numrunning)-offTaskNumRunning]
)

type rawThreadInfo struct {
	UserTime, SystemTime                         uint64
	CPUUsage, Policy, RunState, Flags, SleepTime int32
	Curpri, Priority, Maxpriority                int32
	Name                                         [64]byte
}

var (
	_ = eq{}[unsafe.Sizeof(rawThreadInfo{})-sizeThreadInfo]
	_ = eq{}[unsafe.Offsetof(rawThreadInfo{}.UserTime)-offThreadUserTime]
	_ = eq{}[unsafe.Offsetof(rawThreadInfo{}.SystemTime)-offThreadSystemTime]
	_ = eq{}[unsafe.Offsetof(rawThreadInfo{}.RunState)-offThreadRunState]
	_ = eq{}[unsafe.Offsetof(rawThreadInfo{}.Flags)-offThreadFlags]
	_ = eq{}[unsafe.Offsetof(rawThreadInfo{}.SleepTime)-offThreadSleepTime]
	_ = eq{}[unsafe.Offsetof(rawThreadInfo{}.Name)-offThreadName]
	_ = eq{}[unsafe.Sizeof(rawThreadInfo{}.Name)-lenThreadName]
)
