package darwinproc

import (
	"errors"
	"testing"
)

func TestDecodeRusage_Fields(t *testing.T) {
	b := make([]byte, 96)
	put(b, 0, "uuid-of-the-exec") // ri_uuid
	put(b, 16, uint64(111))       // ri_user_time
	put(b, 56, uint64(4096))      // ri_wired_size
	put(b, 64, uint64(30<<20))    // ri_resident_size
	put(b, 72, uint64(12<<20))    // ri_phys_footprint
	put(b, 80, uint64(999))       // ri_proc_start_abstime
	got, err := decodeRusage(b)
	want := Memory{Resident: 30 << 20, Wired: 4096, Footprint: 12 << 20}
	if err != nil || got != want {
		t.Fatalf("decodeRusage = %+v, %v; want %+v", got, err, want)
	}
	if _, err := decodeRusage(b[:95]); !errors.Is(err, ErrShort) {
		t.Fatalf("decodeRusage(95 bytes) error = %v, want ErrShort", err)
	}
}
