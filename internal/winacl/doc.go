// Package winacl keeps agentty's files private on Windows, where a file
// mode is only a read-only bit: a protected DACL that grants the user (and
// SYSTEM, which every service and backup runs as) full access and inherits
// nothing from the parent directory; and user SIDs, read from a process's
// token, to tell who owns a file or a socket's peer. The SDDL and SID logic
// is plain Go, tested on every OS; the calls into Windows are in
// winacl_windows.go.
package winacl
