package backend

// growPipe never grows a pipe on macOS: there is no F_SETPIPE_SZ, and the
// kernel already grows a busy pipe's buffer itself (to 64 KiB).
func growPipe(uintptr) (grew, retry bool) { return false, false }

// shrinkDone: nothing grew.
func shrinkDone() {}
