package ports

import "github.com/agentty/agentty/internal/darwinproc"

// fromDarwin is a listening socket as macOS's kernel describes it
// (proc_pidfdinfo), in this package's form; false for one that does not
// listen. The kernel's socket handle stands for the inode: the same for
// every descriptor of the socket, in any process.
func fromDarwin(si darwinproc.SocketInfo) (Socket, bool) {
	if !si.Listening() {
		return Socket{}, false
	}
	s := Socket{Inode: si.Handle}
	switch si.Kind {
	case darwinproc.KindUnix:
		s.Proto, s.Path = "unix", si.Path
		return s, true
	case darwinproc.KindTCP:
		s.Proto = "tcp"
	case darwinproc.KindIn:
		s.Proto = "udp"
	default:
		return Socket{}, false
	}
	switch si.Family {
	case darwinproc.AFInet6:
		s.Proto += "6"
	case darwinproc.AFInet:
	default:
		return Socket{}, false
	}
	s.Address, s.Port = si.LocalAddr.String(), si.LocalPort
	return s, true
}
