package nodebackend

// fakeLinkMain does nothing: the link tests (link_test.go) use POSIX
// signals and run on Unix only.
func fakeLinkMain() {}
