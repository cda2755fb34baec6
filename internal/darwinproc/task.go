package darwinproc

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Both darwin targets (amd64, arm64) are little-endian.
var le = binary.LittleEndian

// struct proc_taskinfo.
const (
	sizeTaskInfo         = 96
	offTaskResident      = 8
	offTaskTotalUser     = 16
	offTaskTotalSystem   = 24
	offTaskSyscallsMach  = 72
	offTaskSyscallsUnix  = 76
	offTaskCSw           = 80
	offTaskThreadNum     = 84
	offTaskNumRunning    = 88
	offTaskVirtual       = 0
	offTaskFaults        = 52
	offTaskMessagesSent  = 64
	offTaskMessagesRecvd = 68
)

// Task is a process's struct proc_taskinfo (what TaskInfo returns; the
// function has the name). The counters are the
// kernel's int32s: they wrap, so compare them by difference.
type Task struct {
	VirtualSize  uint64 // bytes
	ResidentSize uint64 // bytes
	// TotalUser and TotalSystem are the CPU time of all threads, the ended
	// ones included, in nanoseconds (converted from the kernel's Mach
	// ticks, see ticksToNanos).
	TotalUser, TotalSystem uint64
	Faults                 int32
	MessagesSent           int32
	MessagesReceived       int32
	SyscallsMach           int32
	SyscallsUnix           int32
	CSw                    int32 // context switches
	ThreadNum              int32
	NumRunning             int32
}

// decodeTaskInfo reads a struct proc_taskinfo; tbFreq is the timebase's
// ticks per second that pti_total_user and pti_total_system count in.
func decodeTaskInfo(b []byte, tbFreq uint64) (Task, error) {
	if len(b) < sizeTaskInfo {
		return Task{}, fmt.Errorf("proc_taskinfo: %d of %d bytes: %w", len(b), sizeTaskInfo, ErrShort)
	}
	i32 := func(off int) int32 { return int32(le.Uint32(b[off:])) }
	return Task{
		VirtualSize:      le.Uint64(b[offTaskVirtual:]),
		ResidentSize:     le.Uint64(b[offTaskResident:]),
		TotalUser:        ticksToNanos(le.Uint64(b[offTaskTotalUser:]), tbFreq),
		TotalSystem:      ticksToNanos(le.Uint64(b[offTaskTotalSystem:]), tbFreq),
		Faults:           i32(offTaskFaults),
		MessagesSent:     i32(offTaskMessagesSent),
		MessagesReceived: i32(offTaskMessagesRecvd),
		SyscallsMach:     i32(offTaskSyscallsMach),
		SyscallsUnix:     i32(offTaskSyscallsUnix),
		CSw:              i32(offTaskCSw),
		ThreadNum:        i32(offTaskThreadNum),
		NumRunning:       i32(offTaskNumRunning),
	}, nil
}

// ticksToNanos converts Mach absolute time ticks to nanoseconds.
// proc_taskinfo's totals are ticks, not nanoseconds: 1 GHz on Intel (so
// equal), 24 MHz on Apple silicon. The frequency comes from
// hw.tbfrequency, not mach_timebase_info, which under Rosetta 2 answers 1/1
// while the kernel still counts native ticks. 0 (unknown) leaves ticks as
// they are.
func ticksToNanos(ticks, freq uint64) uint64 {
	if freq == 0 || freq == 1e9 {
		return ticks
	}
	hi, lo := bits.Mul64(ticks, 1e9)
	if hi >= freq { // the result would not fit in 64 bits
		return ^uint64(0)
	}
	q, _ := bits.Div64(hi, lo, freq)
	return q
}
