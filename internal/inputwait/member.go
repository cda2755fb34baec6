package inputwait

// member is a live process of the inspected group, as a verdict names it.
type member struct {
	pid  int
	comm procName
}

// procName is a process's command name, kept by value: it outlives the
// buffer the line that held it was read into.
type procName struct {
	b [16]byte
	n int
}

func (c *procName) String() string { return string(c.b[:c.n]) }
