package darwinproc

// struct proc_fdinfo, PROC_PIDLISTFDS's entries.
const (
	sizeFDInfo = 8
	offFDNum   = 0
	offFDType  = 4
)

// Descriptor types, proc_fdtype (PROX_FDTYPE_*).
const (
	FDVnode  = 1
	FDSocket = 2
	FDPSHM   = 3
	FDPSEM   = 4
	FDKqueue = 5
	FDPipe   = 6
)

// FD is one open descriptor of a process.
type FD struct {
	Num  int
	Type uint32 // FD* above
}

func decodeFDs(b []byte) []FD {
	out := make([]FD, 0, len(b)/sizeFDInfo)
	for off := 0; off+sizeFDInfo <= len(b); off += sizeFDInfo {
		out = append(out, FD{Num: int(int32(le.Uint32(b[off+offFDNum:]))), Type: le.Uint32(b[off+offFDType:])})
	}
	return out
}

// struct proc_vnodepathinfo: the working directory's vnode_info_path, then
// the root directory's.
const (
	sizeVnodePathInfo = 2352
	offVnodeCwdPath   = 152 // pvi_cdir.vip_path, after a vnode_info
	lenVnodePath      = 1024
)

func decodeCwd(b []byte) (string, error) {
	if len(b) < offVnodeCwdPath+lenVnodePath {
		return "", fmtShort("proc_vnodepathinfo", len(b), sizeVnodePathInfo)
	}
	return cString(b[offVnodeCwdPath : offVnodeCwdPath+lenVnodePath]), nil
}
