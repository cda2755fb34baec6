package darwinproc

import "fmt"

// struct rusage_info_v0 (sys/resource.h), proc_pid_rusage's
// RUSAGE_INFO_V0.
const (
	sizeRusageV0       = 96
	offRusageResident  = 64
	offRusageFootprint = 72
	offRusageWired     = 56
	rusageFlavorV0     = 0
)

// Memory is what proc_pid_rusage tells of a process's memory, in bytes.
type Memory struct {
	Resident uint64 // ri_resident_size
	Wired    uint64 // ri_wired_size
	// Footprint is ri_phys_footprint: the memory the process is charged
	// for, its own dirty pages and compressed ones (Activity Monitor's
	// "Memory"); the nearest macOS has to Linux's RssAnon.
	Footprint uint64
}

func decodeRusage(b []byte) (Memory, error) {
	if len(b) < sizeRusageV0 {
		return Memory{}, fmt.Errorf("rusage_info_v0: %d of %d bytes: %w", len(b), sizeRusageV0, ErrShort)
	}
	return Memory{
		Resident:  le.Uint64(b[offRusageResident:]),
		Wired:     le.Uint64(b[offRusageWired:]),
		Footprint: le.Uint64(b[offRusageFootprint:]),
	}, nil
}
