package darwinproc

import (
	"fmt"
	"time"
)

// struct proc_bsdinfo.
const (
	sizeBSDInfo    = 136
	offBSDFlags    = 0
	offBSDStatus   = 4
	offBSDPID      = 12
	offBSDPPID     = 16
	offBSDUID      = 20
	offBSDRUID     = 28
	offBSDComm     = 48
	lenBSDComm     = 16 // MAXCOMLEN
	offBSDName     = 64
	lenBSDName     = 32 // 2 * MAXCOMLEN
	offBSDNFiles   = 96
	offBSDPGID     = 100
	offBSDTDev     = 108
	offBSDTPGID    = 112
	offBSDNice     = 116
	offBSDStartSec = 120
	offBSDStartUs  = 128
)

// Process states, pbi_status (p_stat in sys/proc.h).
const (
	StatusIdle   = 1 // SIDL: being created by fork
	StatusRun    = 2 // SRUN
	StatusSleep  = 3 // SSLEEP
	StatusStop   = 4 // SSTOP
	StatusZombie = 5 // SZOMB
)

// BSD is a process's struct proc_bsdinfo.
type BSD struct {
	PID, PPID, PGID int
	UID, RUID       uint32
	Status          uint32 // Status* above
	Flags           uint32 // PROC_FLAG_*
	Comm            string // up to 16 bytes of the executable's name
	Name            string // the longer name, when the process set one
	NFiles          uint32 // size of the descriptor table
	TDev            uint32 // controlling terminal's device, NODEV (-1) for none
	TPGID           int    // that terminal's foreground process group
	Nice            int32
	// Start is when the process started, to the microsecond: with the pid
	// it names one process even after the pid is reused.
	Start time.Time
}

// StartMicros is Start as microseconds since the epoch, the form the
// kernel keeps it in.
func (b BSD) StartMicros() int64 { return b.Start.UnixMicro() }

func decodeBSDInfo(b []byte) (BSD, error) {
	if len(b) < sizeBSDInfo {
		return BSD{}, fmt.Errorf("proc_bsdinfo: %d of %d bytes: %w", len(b), sizeBSDInfo, ErrShort)
	}
	u32 := func(off int) uint32 { return le.Uint32(b[off:]) }
	sec, usec := int64(le.Uint64(b[offBSDStartSec:])), int64(le.Uint64(b[offBSDStartUs:]))
	return BSD{
		PID:    int(int32(u32(offBSDPID))),
		PPID:   int(int32(u32(offBSDPPID))),
		PGID:   int(int32(u32(offBSDPGID))),
		UID:    u32(offBSDUID),
		RUID:   u32(offBSDRUID),
		Status: u32(offBSDStatus),
		Flags:  u32(offBSDFlags),
		Comm:   cString(b[offBSDComm : offBSDComm+lenBSDComm]),
		Name:   cString(b[offBSDName : offBSDName+lenBSDName]),
		NFiles: u32(offBSDNFiles),
		TDev:   u32(offBSDTDev),
		TPGID:  int(int32(u32(offBSDTPGID))),
		Nice:   int32(u32(offBSDNice)),
		Start:  time.Unix(sec, usec*1000),
	}, nil
}

// struct proc_uniqidentifierinfo (proc_info_private.h; 56 bytes, the
// size every macOS since 10.8 returns).
const (
	sizeUniqIDInfo   = 56
	offUniqID        = 16
	offUniqParentID  = 24
	offUniqIDVersion = 32
)

// IDs are a process's unique identifiers: never reused while the machine
// runs, unlike pids.
type IDs struct {
	Unique uint64 // p_uniqueid
	// ParentUnique is p_puniqueid, the unique id of the process that
	// forked it; it names that parent even after it is gone.
	ParentUnique uint64
	IDVersion    int32 // p_idversion: the pid's version, changed by every exec
}

func decodeUniqIDs(b []byte) (IDs, error) {
	if len(b) < sizeUniqIDInfo {
		return IDs{}, fmt.Errorf("proc_uniqidentifierinfo: %d of %d bytes: %w", len(b), sizeUniqIDInfo, ErrShort)
	}
	return IDs{
		Unique:       le.Uint64(b[offUniqID:]),
		ParentUnique: le.Uint64(b[offUniqParentID:]),
		IDVersion:    int32(le.Uint32(b[offUniqIDVersion:])),
	}, nil
}
