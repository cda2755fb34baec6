//go:build !darwin && !windows

package main

// browserOpener is the freedesktop opener, which every Linux and BSD
// desktop provides.
func browserOpener(url string) (string, []string) { return "xdg-open", []string{url} }
