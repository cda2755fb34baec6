// Package sigs names signals and holds the numbers of the POSIX signals
// the engine uses by name, on every platform: on Windows the syscall
// package lacks most of them, and there they carry Linux's numbers, which a
// remote Linux host understands and a local Windows backend refuses.
package sigs

import "syscall"

// Name returns the signal's name ("SIGINT"), or "" for an unknown number.
func Name(sig syscall.Signal) string { return name(sig) }

// Parse returns the signal named name ("SIGINT" or "INT").
func Parse(name string) (syscall.Signal, bool) { return parse(name) }
