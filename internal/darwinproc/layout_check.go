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

type rawBSDInfo struct {
	Flags, Status, Xstatus, PID, PPID, UID, GID, RUID, RGID, SVUID, SVGID, Rfu1 uint32
	Comm                                                                        [16]byte
	Name                                                                        [32]byte
	NFiles, PGID, Pjobc, TDev, TPGID                                            uint32
	Nice                                                                        int32
	StartSec, StartUsec                                                         uint64
}

var (
	_ = eq{}[unsafe.Sizeof(rawBSDInfo{})-sizeBSDInfo]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.Flags)-offBSDFlags]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.Status)-offBSDStatus]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.PID)-offBSDPID]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.PPID)-offBSDPPID]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.UID)-offBSDUID]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.RUID)-offBSDRUID]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.Comm)-offBSDComm]
	_ = eq{}[unsafe.Sizeof(rawBSDInfo{}.Comm)-lenBSDComm]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.Name)-offBSDName]
	_ = eq{}[unsafe.Sizeof(rawBSDInfo{}.Name)-lenBSDName]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.NFiles)-offBSDNFiles]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.PGID)-offBSDPGID]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.TDev)-offBSDTDev]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.TPGID)-offBSDTPGID]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.Nice)-offBSDNice]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.StartSec)-offBSDStartSec]
	_ = eq{}[unsafe.Offsetof(rawBSDInfo{}.StartUsec)-offBSDStartUs]
)

type rawUniqIDInfo struct {
	UUID                       [16]byte
	Unique, ParentUnique       uint64
	IDVersion, OrigPPIDVersion int32
	Reserve2, Reserve3         uint64
}

var (
	_ = eq{}[unsafe.Sizeof(rawUniqIDInfo{})-sizeUniqIDInfo]
	_ = eq{}[unsafe.Offsetof(rawUniqIDInfo{}.Unique)-offUniqID]
	_ = eq{}[unsafe.Offsetof(rawUniqIDInfo{}.ParentUnique)-offUniqParentID]
	_ = eq{}[unsafe.Offsetof(rawUniqIDInfo{}.IDVersion)-offUniqIDVersion]
)

type rawFDInfo struct {
	FD   int32
	Type uint32
}

var (
	_ = eq{}[unsafe.Sizeof(rawFDInfo{})-sizeFDInfo]
	_ = eq{}[unsafe.Offsetof(rawFDInfo{}.FD)-offFDNum]
	_ = eq{}[unsafe.Offsetof(rawFDInfo{}.Type)-offFDType]
)

type rawVinfoStat struct {
	Dev                            uint32
	Mode, Nlink                    uint16
	Ino                            uint64
	UID, GID                       uint32
	Atime, AtimeNs, Mtime, MtimeNs int64
	Ctime, CtimeNs, Birth, BirthNs int64
	Size, Blocks                   int64
	Blksize                        int32
	Flags, Gen, Rdev               uint32
	Qspare                         [2]int64
}

type rawVnodeInfo struct {
	Stat      rawVinfoStat
	Type, Pad int32
	Fsid      [2]int32
}

type rawVnodeInfoPath struct {
	VI   rawVnodeInfo
	Path [1024]byte // MAXPATHLEN
}

type rawVnodePathInfo struct{ Cdir, Rdir rawVnodeInfoPath }

var (
	_ = eq{}[unsafe.Sizeof(rawVinfoStat{})-136]
	_ = eq{}[unsafe.Sizeof(rawVnodePathInfo{})-sizeVnodePathInfo]
	_ = eq{}[unsafe.Offsetof(rawVnodePathInfo{}.Cdir)+unsafe.Offsetof(rawVnodeInfoPath{}.Path)-offVnodeCwdPath]
	_ = eq{}[unsafe.Sizeof(rawVnodeInfoPath{}.Path)-lenVnodePath]
)

type rawProcFileinfo struct {
	Openflags, Status uint32
	Offset            int64
	Type              int32
	Guardflags        uint32
}

type rawSockbufInfo struct {
	Cc, Hiwat, Mbcnt, Mbmax, Lowat uint32
	Flags, Timeo                   int16
}

// in4in6_addr and in6_addr are 16 bytes aligned to 4.
type rawInAddr [4]uint32

type rawInSockinfo struct {
	FPort, LPort int32
	Gencnt       uint64
	Flags, Flow  uint32
	VFlag, IPTTL uint8
	Rfu1         uint32
	FAddr, LAddr rawInAddr
	V4           struct{ Tos uint8 }
	V6           struct {
		Hlim    uint8
		Cksum   int32
		Ifindex uint16
		Hops    int16
	}
}

type rawTCPSockinfo struct {
	Ini         rawInSockinfo
	State       int32
	Timer       [4]int32
	Mss         int32
	Flags, Rfu1 uint32
	Tp          uint64
}

type rawUnSockinfo struct {
	ConnSo, ConnPcb uint64
	Addr, CAddr     [255]byte // union of sockaddr_un and char[SOCK_MAXADDRLEN]
}

type rawSocketInfo struct {
	Stat                                                 rawVinfoStat
	So, Pcb                                              uint64
	Type, Protocol, Family                               int32
	Options, Linger, State, Qlen, Incqlen, Qlimit, Timeo int16
	Error                                                uint16
	Oobmark                                              uint32
	Rcv, Snd                                             rawSockbufInfo
	Kind                                                 int32
	Rfu1                                                 uint32
	Proto                                                [66]uint64 // the union: un_sockinfo is the largest
}

type rawSocketFDInfo struct {
	Pfi rawProcFileinfo
	Psi rawSocketInfo
}

const psi = unsafe.Offsetof(rawSocketFDInfo{}.Psi)

var (
	_ = eq{}[unsafe.Sizeof(rawSocketFDInfo{})-sizeSocketFDInfo]
	_ = eq{}[unsafe.Sizeof(rawSocketInfo{}.Proto)-unsafe.Sizeof(rawUnSockinfo{})]
	_ = eq{}[psi+unsafe.Offsetof(rawSocketInfo{}.So)-offSockHandle]
	_ = eq{}[psi+unsafe.Offsetof(rawSocketInfo{}.Type)-offSockType]
	_ = eq{}[psi+unsafe.Offsetof(rawSocketInfo{}.Protocol)-offSockProtocol]
	_ = eq{}[psi+unsafe.Offsetof(rawSocketInfo{}.Family)-offSockFamily]
	_ = eq{}[psi+unsafe.Offsetof(rawSocketInfo{}.Options)-offSockOptions]
	_ = eq{}[psi+unsafe.Offsetof(rawSocketInfo{}.Kind)-offSockKind]
	_ = eq{}[psi+unsafe.Offsetof(rawSocketInfo{}.Proto)-offSockProto]
	_ = eq{}[unsafe.Sizeof(rawInSockinfo{})-80]
	_ = eq{}[unsafe.Offsetof(rawInSockinfo{}.FPort)-offInFPort]
	_ = eq{}[unsafe.Offsetof(rawInSockinfo{}.LPort)-offInLPort]
	_ = eq{}[unsafe.Offsetof(rawInSockinfo{}.FAddr)-offInFAddr]
	_ = eq{}[unsafe.Offsetof(rawInSockinfo{}.LAddr)-offInLAddr]
	_ = eq{}[unsafe.Offsetof(rawTCPSockinfo{}.State)-offTCPState]
	_ = eq{}[unsafe.Sizeof(rawTCPSockinfo{})-120]
	_ = eq{}[unsafe.Offsetof(rawUnSockinfo{}.Addr)-offUnAddr]
	_ = eq{}[unsafe.Sizeof(rawUnSockinfo{}.Addr)-lenUnAddr]
)

type rawRusageInfoV0 struct {
	UUID                               [16]byte
	UserTime, SystemTime, PkgIdleWkups uint64
	InterruptWkups, Pageins, WiredSize uint64
	ResidentSize, PhysFootprint        uint64
	ProcStartAbstime, ProcExitAbstime  uint64
}

var (
	_ = eq{}[unsafe.Sizeof(rawRusageInfoV0{})-sizeRusageV0]
	_ = eq{}[unsafe.Offsetof(rawRusageInfoV0{}.WiredSize)-offRusageWired]
	_ = eq{}[unsafe.Offsetof(rawRusageInfoV0{}.ResidentSize)-offRusageResident]
	_ = eq{}[unsafe.Offsetof(rawRusageInfoV0{}.PhysFootprint)-offRusageFootprint]
)
