package backend

import (
	"os"
	"syscall"
	"time"
)

// waitExit reaps p and returns its exit. Called once OnExit's note came
// (or to block until the exit), so the wait4 behind os.Process.Wait holds
// a thread only briefly.
func waitExit(p *os.Process, ru *rootUsage) (Exit, error) {
	st, err := p.Wait()
	if err != nil {
		return Exit{Code: -1}, err
	}
	if r, ok := st.SysUsage().(*syscall.Rusage); ok {
		ru.cpu = time.Duration(r.Utime.Nano() + r.Stime.Nano())
		ru.maxRSS = r.Maxrss // bytes on macOS (kilobytes on Linux)
	}
	ws := st.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return Exit{Code: -1, Signal: ws.Signal()}, nil
	}
	return Exit{Code: ws.ExitStatus()}, nil
}
