package proctree

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// ChildDefaults makes the programs this process starts from now on begin
// with SIGHUP and SIGINT at their default action. A process started with
// them ignored (under nohup; a script's background job ignores SIGINT)
// hands the ignore on through exec, and Go keeps an inherited ignore of
// exactly these two (os/signal). A shell in a session would then never end
// on the hang-up terminate sends it, and Ctrl+C typed into a session would
// interrupt nothing. A handler that drops them keeps this process as deaf
// to them as before, and exec resets a handled signal to its default in
// the child. Signals not ignored are left alone. Safe to call more than
// once and from several goroutines.
func ChildDefaults() { childDefaults() }

var childDefaults = sync.OnceFunc(func() {
	var sigs []os.Signal
	for _, s := range []os.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) > 0 {
		// Never read: a delivery finds it full and is dropped, as an
		// ignored signal would be.
		signal.Notify(make(chan os.Signal, 1), sigs...)
	}
})
