package main

import (
	"fmt"
	"os/exec"
	"time"
)

// openerWait is how long openBrowser waits for the opener to report a
// failure: openers hand the URL to the browser and exit, but some run the
// browser itself, which is left running.
const openerWait = 5 * time.Second

// openBrowser hands url to the system's browser opener (browserOpener,
// per OS) and returns the opener's name; an error says why the URL must
// be opened by hand.
func openBrowser(url string) (string, error) {
	name, args := browserOpener(url)
	path, err := exec.LookPath(name)
	if err != nil {
		return name, fmt.Errorf("no browser opener (%s) found: open the URL below yourself", name)
	}
	cmd := exec.Command(path, args...)
	if err := cmd.Start(); err != nil {
		return name, fmt.Errorf("%s did not start (%v): open the URL below yourself", name, err)
	}
	// The waiter outlives this call only when the opener is the browser
	// itself; agentty web exits right after, which ends it.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return name, fmt.Errorf("%s failed (%v): open the URL below yourself", name, err)
		}
	case <-time.After(openerWait):
	}
	return name, nil
}
