package main

import "os"

// killPID kills pid (SIGKILL on unix, TerminateProcess on Windows).
func killPID(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	defer p.Release()
	return p.Kill()
}
