// Package stdin gives the process's standard input (and output) as a file
// read (written) through the Go runtime's poller.
//
// A pipe or socket inherited as stdin is a blocking file in Go: a read
// parks its thread in the kernel with the thread's scheduler slot (P)
// held, and work the reader hands on just before its next read waits for
// the runtime's monitor to retake that slot, waking another thread (the
// MCP stdio transport did that on every request). A read through the
// poller parks only its goroutine, gives its slot to that work at once,
// and honours deadlines, so a reader can be stopped (the daemon relay).
//
// On Windows both are os.Stdin and os.Stdout as they are: a client's
// anonymous pipe is synchronous and cannot join the poller.
package stdin
