package ports

import "github.com/agentty/agentty/internal/darwinproc"

// Scan lists the listening sockets held by owners: each owner's
// descriptors (PROC_PIDLISTFDS), and of its sockets those the kernel says
// listen (PROC_PIDFDSOCKETINFO). Exact, from each socket's kernel state;
// its cost grows with the owners' descriptors. Owners that exited
// meanwhile are skipped.
func Scan(owners []Owner) ([]Socket, error) {
	held := map[uint64]Socket{} // by kernel handle: the lowest pid holding it
	for _, o := range owners {
		fds, err := darwinproc.FDs(o.PID)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if fd.Type != darwinproc.FDSocket {
				continue
			}
			si, err := darwinproc.Socket(o.PID, fd.Num)
			if err != nil {
				continue // closed meanwhile
			}
			s, ok := fromDarwin(si)
			if !ok {
				continue
			}
			if prev, ok := held[s.Inode]; ok && prev.PID <= o.PID {
				continue
			}
			s.PID, s.Command = o.PID, o.Command
			held[s.Inode] = s
		}
	}
	out := make([]Socket, 0, len(held))
	for _, s := range held {
		out = append(out, s)
	}
	return Sort(out), nil
}

// Scanner scans a session again and again. On macOS every scan reads the
// owners' descriptors: there is no table of listening sockets to validate
// a last answer against.
type Scanner struct{}

// Scan is Scan(owners).
func (*Scanner) Scan(owners []Owner) ([]Socket, error) { return Scan(owners) }
